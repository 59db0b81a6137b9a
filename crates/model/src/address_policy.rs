//! Which network addresses a scan may reach: the pure half of the egress guard.
//!
//! Loopback, private, link-local, CGNAT, multicast, unspecified, documentation and reserved
//! ranges are refused, in IPv4, IPv6 and IPv4-embedded IPv6 form, unless an operator allow-list
//! (`--allow-target CIDR`) names them. The cloud providers' metadata addresses
//! (`CLOUD_METADATA`) are refused by name, and always: no allow-list opens them, since an
//! allow-list wide enough to cover one (`169.254.0.0/16`, `0.0.0.0/0`) is never meant to hand
//! a scan the host's credentials.

use ipnet::IpNet;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The metadata, credential and host-service addresses of the major clouds: (address, whose).
/// Refused even when an allow-list covers them.
pub const CLOUD_METADATA: &[(IpAddr, &str)] = &[
    (v4(169, 254, 169, 254), "instance metadata: AWS, GCP, Azure, OpenStack, Oracle Cloud, DigitalOcean, Hetzner, Linode"),
    (v6(0xfd00, 0xec2, 0x254), "AWS instance metadata (IPv6)"),
    (v4(169, 254, 169, 253), "AWS VPC DNS resolver"),
    (v6(0xfd00, 0xec2, 0x253), "AWS VPC DNS resolver (IPv6)"),
    (v4(169, 254, 169, 123), "AWS time sync"),
    (v6(0xfd00, 0xec2, 0x123), "AWS time sync (IPv6)"),
    (v4(169, 254, 170, 2), "AWS ECS task metadata and credentials"),
    (v4(169, 254, 170, 23), "AWS EKS pod identity credentials"),
    (v6(0xfd00, 0xec2, 0x23), "AWS EKS pod identity credentials (IPv6)"),
    (v4(168, 63, 129, 16), "Azure WireServer and host agent"),
    (v4(100, 100, 100, 200), "Alibaba Cloud instance metadata"),
    (v4(192, 0, 0, 192), "Oracle Cloud instance metadata (legacy)"),
    (v4(169, 254, 0, 23), "Tencent Cloud instance metadata"),
    (v6(0xfd20, 0xce, 0x254), "GCP instance metadata (IPv6)"),
];

const fn v4(a: u8, b: u8, c: u8, d: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(a, b, c, d))
}

/// `first:second::last`.
const fn v6(first: u16, second: u16, last: u16) -> IpAddr {
    IpAddr::V6(Ipv6Addr::new(first, second, 0, 0, 0, 0, 0, last))
}

/// The address policy shared by target validation, the HTTP fetcher and the browser proxy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AddressPolicy {
    allow: Vec<IpNet>,
}

/// Why an address is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockedRange {
    /// One of `CLOUD_METADATA`.
    CloudMetadata,
    Unspecified,
    Loopback,
    Private,
    LinkLocal,
    SharedCgnat,
    Multicast,
    Broadcast,
    Documentation,
    Reserved,
    UniqueLocal,
}

impl BlockedRange {
    pub fn describe(self) -> &'static str {
        match self {
            BlockedRange::CloudMetadata => "a cloud metadata address",
            BlockedRange::Unspecified => "an unspecified address",
            BlockedRange::Loopback => "a loopback address",
            BlockedRange::Private => "a private address",
            BlockedRange::LinkLocal => "a link-local address",
            BlockedRange::SharedCgnat => "a shared (CGNAT) address",
            BlockedRange::Multicast => "a multicast address",
            BlockedRange::Broadcast => "the broadcast address",
            BlockedRange::Documentation => "a documentation address",
            BlockedRange::Reserved => "a reserved address",
            BlockedRange::UniqueLocal => "an IPv6 unique-local address",
        }
    }
}

impl AddressPolicy {
    /// A policy that refuses every special-purpose range and allows `allow` anyway.
    pub fn new(allow: Vec<IpNet>) -> Self {
        AddressPolicy { allow }
    }

    /// The operator allow-list.
    pub fn allowed_nets(&self) -> &[IpNet] {
        &self.allow
    }

    /// `Err(range)` when a scan must not connect to `ip`. A cloud metadata address is refused
    /// whatever the allow-list says.
    pub fn check(&self, ip: IpAddr) -> Result<(), BlockedRange> {
        let canonical = canonical(ip);
        if is_cloud_metadata(canonical) {
            return Err(BlockedRange::CloudMetadata);
        }
        if self.allow.iter().any(|net| net.contains(&canonical) || net.contains(&ip)) {
            return Ok(());
        }
        match classify(canonical) {
            Some(range) => Err(range),
            None => Ok(()),
        }
    }

    pub fn is_allowed(&self, ip: IpAddr) -> bool {
        self.check(ip).is_ok()
    }
}

/// True when `ip` (in canonical form) is one of `CLOUD_METADATA`.
pub fn is_cloud_metadata(ip: IpAddr) -> bool {
    CLOUD_METADATA.iter().any(|(m, _)| *m == ip)
}

/// IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible, NAT64 and 6to4 addresses judged as the IPv4
/// address they carry.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => embedded_v4(v6).map_or(ip, IpAddr::V4),
    }
}

fn embedded_v4(v6: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = v6.segments();
    let tail = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, deprecated), but not :: and ::1.
    if s[..5] == [0; 5] && (s[5] == 0xffff || (s[5] == 0 && u32::from(tail) > 1)) {
        return Some(tail);
    }
    // 64:ff9b::/96 (NAT64) and 64:ff9b:1::/48 (local-use NAT64).
    if s[0] == 0x64 && s[1] == 0xff9b && (s[2..6] == [0; 4] || s[2] == 1) {
        return Some(tail);
    }
    // 2002:AABB:CCDD::/48 (6to4) carries the IPv4 address in segments 1 and 2.
    if s[0] == 0x2002 {
        return Some(Ipv4Addr::new((s[1] >> 8) as u8, s[1] as u8, (s[2] >> 8) as u8, s[2] as u8));
    }
    None
}

fn classify(ip: IpAddr) -> Option<BlockedRange> {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

fn in_v4(ip: Ipv4Addr, base: [u8; 4], prefix: u32) -> bool {
    let mask = if prefix == 0 { 0 } else { u32::MAX << (32 - prefix) };
    (u32::from(ip) & mask) == (u32::from(Ipv4Addr::from(base)) & mask)
}

fn classify_v4(ip: Ipv4Addr) -> Option<BlockedRange> {
    use BlockedRange::*;
    let table: &[([u8; 4], u32, BlockedRange)] = &[
        ([0, 0, 0, 0], 8, Unspecified),
        ([10, 0, 0, 0], 8, Private),
        ([100, 64, 0, 0], 10, SharedCgnat),
        ([127, 0, 0, 0], 8, Loopback),
        ([169, 254, 0, 0], 16, LinkLocal),
        ([172, 16, 0, 0], 12, Private),
        ([192, 0, 0, 0], 24, Reserved),
        ([192, 0, 2, 0], 24, Documentation),
        ([192, 88, 99, 0], 24, Reserved),
        ([192, 168, 0, 0], 16, Private),
        ([198, 18, 0, 0], 15, Reserved),
        ([198, 51, 100, 0], 24, Documentation),
        ([203, 0, 113, 0], 24, Documentation),
        ([224, 0, 0, 0], 4, Multicast),
        ([255, 255, 255, 255], 32, Broadcast),
        ([240, 0, 0, 0], 4, Reserved),
    ];
    table.iter().find(|(base, prefix, _)| in_v4(ip, *base, *prefix)).map(|(_, _, r)| *r)
}

fn in_v6(ip: Ipv6Addr, base: Ipv6Addr, prefix: u32) -> bool {
    let mask = if prefix == 0 { 0 } else { u128::MAX << (128 - prefix) };
    (u128::from(ip) & mask) == (u128::from(base) & mask)
}

fn classify_v6(ip: Ipv6Addr) -> Option<BlockedRange> {
    use BlockedRange::*;
    if ip.is_unspecified() {
        return Some(Unspecified);
    }
    if ip.is_loopback() {
        return Some(Loopback);
    }
    let table: &[(Ipv6Addr, u32, BlockedRange)] = &[
        (Ipv6Addr::new(0, 0, 0, 0, 0, 0, 0, 0), 96, Reserved),
        (Ipv6Addr::new(0x100, 0, 0, 0, 0, 0, 0, 0), 64, Reserved),
        (Ipv6Addr::new(0x2001, 0, 0, 0, 0, 0, 0, 0), 23, Reserved),
        (Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0), 32, Documentation),
        (Ipv6Addr::new(0x3fff, 0, 0, 0, 0, 0, 0, 0), 20, Documentation),
        (Ipv6Addr::new(0xfc00, 0, 0, 0, 0, 0, 0, 0), 7, UniqueLocal),
        (Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 0), 10, LinkLocal),
        (Ipv6Addr::new(0xfec0, 0, 0, 0, 0, 0, 0, 0), 10, Private),
        (Ipv6Addr::new(0xff00, 0, 0, 0, 0, 0, 0, 0), 8, Multicast),
    ];
    table.iter().find(|(base, prefix, _)| in_v6(ip, *base, *prefix)).map(|(_, _, r)| *r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocked(s: &str) -> bool {
        AddressPolicy::default().check(s.parse().unwrap()).is_err()
    }

    #[test]
    fn refuses_special_ranges_in_every_form() {
        for a in [
            "127.0.0.1", "127.255.0.9", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
            "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "240.0.0.1",
            "::1", "::", "fe80::1", "fc00::1", "fd12:3456::1", "ff02::1", "::ffff:127.0.0.1",
            "::ffff:169.254.169.254", "::ffff:10.0.0.1", "64:ff9b::a9fe:a9fe", "2002:7f00:1::1",
            "::127.0.0.1", "2001:db8::1",
        ] {
            assert!(blocked(a), "{a} should be blocked");
        }
    }

    #[test]
    fn allows_public_addresses() {
        for a in ["93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:8.8.8.8"] {
            assert!(!blocked(a), "{a} should be allowed");
        }
    }

    #[test]
    fn cloud_metadata_addresses_are_refused_by_name_in_every_form() {
        let policy = AddressPolicy::default();
        for a in [
            "169.254.169.254", "fd00:ec2::254", "169.254.170.2", "169.254.170.23", "168.63.129.16", "100.100.100.200",
            "192.0.0.192", "169.254.169.253", "fd00:ec2::253", "169.254.169.123", "fd00:ec2::123", "fd00:ec2::23",
            "169.254.0.23", "fd20:ce::254", "::ffff:169.254.169.254", "::ffff:168.63.129.16", "64:ff9b::a83f:8110",
            "2002:a9fe:a9fe::1", "::ffff:100.100.100.200",
        ] {
            assert_eq!(policy.check(a.parse().unwrap()), Err(BlockedRange::CloudMetadata), "{a}");
        }
        assert_eq!(BlockedRange::CloudMetadata.describe(), "a cloud metadata address");
        // Azure's WireServer sits in public space: only its one address is refused.
        assert!(policy.is_allowed("168.63.129.17".parse().unwrap()));
        // Its neighbours stay in their ranges.
        assert_eq!(policy.check("169.254.169.1".parse().unwrap()), Err(BlockedRange::LinkLocal));
        assert_eq!(policy.check("100.100.100.201".parse().unwrap()), Err(BlockedRange::SharedCgnat));
    }

    #[test]
    fn no_allow_list_opens_a_cloud_metadata_address() {
        let policy = AddressPolicy::new(vec![
            "0.0.0.0/0".parse().unwrap(),
            "::/0".parse().unwrap(),
            "169.254.0.0/16".parse().unwrap(),
            "168.63.129.16/32".parse().unwrap(),
        ]);
        for (ip, _) in CLOUD_METADATA {
            assert_eq!(policy.check(*ip), Err(BlockedRange::CloudMetadata), "{ip}");
        }
        // The allow-list still opens what it names otherwise.
        assert!(policy.is_allowed("169.254.1.1".parse().unwrap()));
        assert!(policy.is_allowed("10.0.0.1".parse().unwrap()));
    }

    #[test]
    fn allow_list_opens_exactly_its_range() {
        let policy = AddressPolicy::new(vec!["127.0.0.1/32".parse().unwrap()]);
        assert!(policy.is_allowed("127.0.0.1".parse().unwrap()));
        assert!(policy.is_allowed("::ffff:127.0.0.1".parse().unwrap()));
        assert!(!policy.is_allowed("127.0.0.2".parse().unwrap()));
        assert!(!policy.is_allowed("::1".parse().unwrap()));
    }
}
