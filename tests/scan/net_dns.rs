//! The egress guard's own resolver against a DNS server of the test's (127.0.0.1, UDP), which
//! counts the queries it gets: a dead domain's sixty host names cost one lookup and a probe of
//! the domain (RFC 8020: nothing exists under an NXDOMAIN), and an answer without records cuts
//! nothing.

use hickory_server::proto::op::{Message, MessageType, ResponseCode};
use hickory_server::proto::rr::rdata::A;
use hickory_server::proto::rr::{RData, Record, RecordType};
use sitescan::model::AddressPolicy;
use sitescan::net::EgressGuard;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A name server: `gone.test` and everything under it do not exist; `live.test` has the address
/// 127.0.0.1; any other name exists without records. Returns its address and the names asked.
async fn name_server() -> (SocketAddr, Arc<Mutex<Vec<String>>>) {
    let socket = tokio::net::UdpSocket::bind("127.0.0.1:0").await.expect("bind dns");
    let addr = socket.local_addr().expect("addr");
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = asked.clone();
    tokio::spawn(async move {
        let mut buf = vec![0u8; 1500];
        loop {
            let Ok((n, from)) = socket.recv_from(&mut buf).await else { return };
            let Ok(query) = Message::from_vec(&buf[..n]) else { continue };
            let Some(q) = query.queries().first().cloned() else { continue };
            let name = q.name().to_ascii().trim_end_matches('.').to_ascii_lowercase();
            log.lock().unwrap().push(format!("{name} {}", q.query_type()));
            let mut reply = Message::new();
            reply.set_id(query.id()).set_message_type(MessageType::Response).set_recursion_desired(true).set_recursion_available(true);
            reply.add_query(q.clone());
            if name == "gone.test" || name.ends_with(".gone.test") {
                reply.set_response_code(ResponseCode::NXDomain);
            } else if name == "live.test" && q.query_type() == RecordType::A {
                reply.add_answer(Record::from_rdata(q.name().clone(), 60, RData::A(A::new(127, 0, 0, 1))));
            }
            let _ = socket.send_to(&reply.to_vec().expect("encode"), from).await;
        }
    });
    (addr, asked)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn net_a_dead_domain_costs_one_lookup_and_a_probe() {
    let (dns, asked) = name_server().await;
    let guard = EgressGuard::new(AddressPolicy::new(vec!["127.0.0.0/8".parse().unwrap()])).with_name_server(dns);

    let first = guard.resolve("cdn0.gone.test", 80).await.expect_err("a dead name");
    assert!(first.to_string().contains("does not exist in DNS"), "{first}");
    // The probe of its ancestors runs beside: `test` exists (no records), `gone.test` does not.
    let cut = Instant::now();
    while !asked.lock().unwrap().iter().any(|q| q.starts_with("gone.test ")) && cut.elapsed() < Duration::from_secs(5) {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
    let before = asked.lock().unwrap().len();

    let started = Instant::now();
    let all = futures::future::join_all((1..60).map(|i| {
        let guard = guard.clone();
        async move { guard.resolve(&format!("cdn{i}.gone.test"), 80).await }
    }))
    .await;
    let took = started.elapsed();
    for r in &all {
        let e = r.as_ref().expect_err("dead");
        assert!(e.to_string().contains("nothing exists under gone.test in DNS"), "{e}");
    }
    let queries = asked.lock().unwrap().clone();
    assert_eq!(queries.len(), before, "the 59 other names cost no query: {queries:?}");
    assert!(queries.iter().any(|q| q == "test A") && queries.iter().any(|q| q == "gone.test A"), "{queries:?}");
    assert!(queries.len() <= 4, "one lookup (A and AAAA) and two probes: {queries:?}");
    eprintln!("59 names under a dead domain answered in {took:?}");

    // An ancestor that exists without records cuts nothing, and a live name resolves.
    assert_eq!(guard.resolve("live.test", 80).await.expect("live"), vec!["127.0.0.1:80".parse::<SocketAddr>().unwrap()]);
    let other = guard.resolve("nothing-here.test", 80).await.expect_err("no address");
    assert!(other.to_string().contains("DNS has no address for the name"), "{other}");
}
