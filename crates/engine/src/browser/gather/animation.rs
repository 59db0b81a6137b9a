//! How long an image animates, read from its bytes: GIF (frame delays of its graphic control
//! extensions, loop count of its NETSCAPE2.0 extension), APNG (`acTL` and `fcTL` chunks) and
//! animated WebP (`ANIM` and `ANMF` chunks). Only the container is walked, nothing is decoded,
//! so a hand-written walker is enough (no GIF or WebP crate is in the build; the `png` crate would
//! decompress every frame to reach the frame controls). Bounded: at most `MAX_ANIMATION_BYTES`
//! are read and `MAX_FRAMES` frames counted; truncated or hostile bytes end the walk with what was
//! read so far, never a panic.
//!
//! Delays are those Chromium shows: a frame delay of 10 ms or less is played as 100 ms. Plays:
//! a GIF's loop count `n` repeats the animation `n` times after the first play (0: forever);
//! APNG's `num_plays` and WebP's loop count are plays in all (0: forever).

/// Images larger than this are not read.
pub const MAX_ANIMATION_BYTES: usize = 8 * 1024 * 1024;
/// Frames counted at most; the walk stops there (the loop is at least that long).
pub const MAX_FRAMES: u32 = 5_000;

/// What an animated image does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Animation {
    pub format: &'static str,
    pub frames: u32,
    /// One pass through the frames, in ms.
    pub loop_ms: u64,
    /// Plays in all; `None` forever.
    pub plays: Option<u32>,
}

/// A scan's animations by response (`None`: a still image).
pub(crate) type ImageAnimations = super::response_memo::ResponseMemo<Option<Animation>>;

/// A frame delay as Chromium plays it.
fn shown_ms(ms: u64) -> u64 {
    if ms <= 10 { 100 } else { ms }
}

/// The animation in `bytes`, when they hold an image of more than one frame.
pub fn parse(bytes: &[u8]) -> Option<Animation> {
    let bytes = bytes.get(..bytes.len().min(MAX_ANIMATION_BYTES))?;
    let found = if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        gif(bytes)
    } else if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        apng(bytes)
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        webp(bytes)
    } else {
        None
    };
    found.filter(|a| a.frames > 1)
}

fn u16_le(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes([*b.get(at)?, *b.get(at + 1)?]))
}

fn u16_be(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*b.get(at)?, *b.get(at + 1)?]))
}

fn u24_le(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes([*b.get(at)?, *b.get(at + 1)?, *b.get(at + 2)?, 0]))
}

fn u32_be(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes([*b.get(at)?, *b.get(at + 1)?, *b.get(at + 2)?, *b.get(at + 3)?]))
}

fn u32_le(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes([*b.get(at)?, *b.get(at + 1)?, *b.get(at + 2)?, *b.get(at + 3)?]))
}

/// Skips GIF data sub-blocks from `at`; returns the offset after the terminator.
fn skip_sub_blocks(b: &[u8], mut at: usize) -> Option<usize> {
    loop {
        let size = usize::from(*b.get(at)?);
        at += 1;
        if size == 0 {
            return Some(at);
        }
        at += size;
    }
}

fn gif(b: &[u8]) -> Option<Animation> {
    let packed = *b.get(10)?;
    let mut at = 13;
    if packed & 0x80 != 0 {
        at += 3 * (1usize << ((packed & 7) + 1));
    }
    let (mut frames, mut loop_ms, mut plays) = (0u32, 0u64, Some(1u32));
    let mut delay_cs: Option<u16> = None;
    while frames < MAX_FRAMES {
        let Some(&introducer) = b.get(at) else { break };
        match introducer {
            0x21 => {
                let label = *b.get(at + 1)?;
                let body = at + 2;
                if label == 0xF9 && b.get(body) == Some(&4) {
                    delay_cs = u16_le(b, body + 2);
                } else if label == 0xFF && b.get(body) == Some(&11) {
                    let id = b.get(body + 1..body + 12)?;
                    let data = body + 12;
                    if (id == b"NETSCAPE2.0" || id == b"ANIMEXTS1.0") && b.get(data) == Some(&3) && b.get(data + 1) == Some(&1) {
                        let count = u16_le(b, data + 2)?;
                        plays = if count == 0 { None } else { Some(u32::from(count) + 1) };
                    }
                }
                let Some(next) = skip_sub_blocks(b, body) else { break };
                at = next;
            }
            0x2C => {
                let local = *b.get(at + 9)?;
                let mut data = at + 10;
                if local & 0x80 != 0 {
                    data += 3 * (1usize << ((local & 7) + 1));
                }
                frames += 1;
                loop_ms = loop_ms.saturating_add(shown_ms(u64::from(delay_cs.take().unwrap_or(0)) * 10));
                // The LZW minimum code size, then the image data.
                let Some(next) = skip_sub_blocks(b, data + 1) else { break };
                at = next;
            }
            _ => break, // 0x3B (trailer) or garbage
        }
    }
    Some(Animation { format: "gif", frames, loop_ms, plays })
}

fn apng(b: &[u8]) -> Option<Animation> {
    let mut at = 8;
    let (mut frames, mut loop_ms, mut plays, mut animated) = (0u32, 0u64, None, false);
    while frames < MAX_FRAMES {
        let (Some(len), Some(kind)) = (u32_be(b, at), b.get(at + 4..at + 8)) else { break };
        let data = at + 8;
        match kind {
            b"acTL" => {
                animated = true;
                let n = u32_be(b, data + 4)?;
                plays = (n != 0).then_some(n);
            }
            b"fcTL" => {
                frames += 1;
                let num = u64::from(u16_be(b, data + 20)?);
                let den = match u16_be(b, data + 22)? {
                    0 => 100,
                    d => u64::from(d),
                };
                loop_ms = loop_ms.saturating_add(shown_ms(num * 1000 / den));
            }
            b"IEND" => break,
            _ => {}
        }
        at = data.checked_add(usize::try_from(len).ok()?)?.checked_add(4)?;
    }
    animated.then_some(Animation { format: "apng", frames, loop_ms, plays })
}

fn webp(b: &[u8]) -> Option<Animation> {
    let mut at = 12;
    let (mut frames, mut loop_ms, mut plays, mut animated) = (0u32, 0u64, None, false);
    while frames < MAX_FRAMES {
        let (Some(kind), Some(len)) = (b.get(at..at + 4), u32_le(b, at + 4)) else { break };
        let data = at + 8;
        match kind {
            b"ANIM" => {
                animated = true;
                let n = u32::from(u16_le(b, data + 4)?);
                plays = (n != 0).then_some(n);
            }
            b"ANMF" => {
                frames += 1;
                loop_ms = loop_ms.saturating_add(shown_ms(u64::from(u24_le(b, data + 12)?)));
            }
            _ => {}
        }
        let len = usize::try_from(len).ok()?;
        at = data.checked_add(len)?.checked_add(len & 1)?;
    }
    animated.then_some(Animation { format: "webp", frames, loop_ms, plays })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A GIF of `delays_cs.len()` 1x1 frames with these delays, looping `loops` (None: no
    /// NETSCAPE2.0 extension, played once).
    pub(crate) fn gif_bytes(delays_cs: &[u16], loops: Option<u16>) -> Vec<u8> {
        let mut g = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff".to_vec();
        if let Some(n) = loops {
            g.extend_from_slice(b"\x21\xff\x0bNETSCAPE2.0\x03\x01");
            g.extend_from_slice(&n.to_le_bytes());
            g.push(0);
        }
        for d in delays_cs {
            g.extend_from_slice(b"\x21\xf9\x04\x00");
            g.extend_from_slice(&d.to_le_bytes());
            g.extend_from_slice(b"\x00\x00");
            g.extend_from_slice(b"\x2c\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02\x44\x01\x00");
        }
        g.push(0x3b);
        g
    }

    fn chunk(kind: &[u8], data: &[u8]) -> Vec<u8> {
        let mut c = (data.len() as u32).to_be_bytes().to_vec();
        c.extend_from_slice(kind);
        c.extend_from_slice(data);
        c.extend_from_slice(&[0, 0, 0, 0]);
        c
    }

    #[test]
    fn reads_gif_delays_and_loops() {
        let a = parse(&gif_bytes(&[50, 50, 50], Some(0))).unwrap();
        assert_eq!((a.format, a.frames, a.loop_ms, a.plays), ("gif", 3, 1500, None));
        let a = parse(&gif_bytes(&[100, 100], Some(2))).unwrap();
        assert_eq!((a.loop_ms, a.plays), (2000, Some(3)));
        // No loop extension: played once. Delays of 0 and 1 cs are shown for 100 ms.
        let a = parse(&gif_bytes(&[0, 1], None)).unwrap();
        assert_eq!((a.loop_ms, a.plays), (200, Some(1)));
        // One frame is no animation.
        assert_eq!(parse(&gif_bytes(&[500], Some(0))), None);
        assert_eq!(parse(b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff\x21\xf9\x04\x01\x00\x00\x00\x00\x2c\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02\x44\x01\x00\x3b"), None);
    }

    #[test]
    fn reads_apng_and_webp() {
        let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
        png.extend(chunk(b"IHDR", &[0; 13]));
        png.extend(chunk(b"acTL", &[0, 0, 0, 2, 0, 0, 0, 0]));
        for _ in 0..2 {
            let mut fc = vec![0; 26];
            fc[20..22].copy_from_slice(&3u16.to_be_bytes());
            fc[22..24].copy_from_slice(&1u16.to_be_bytes());
            png.extend(chunk(b"fcTL", &fc));
        }
        png.extend(chunk(b"IEND", &[]));
        assert_eq!(parse(&png), Some(Animation { format: "apng", frames: 2, loop_ms: 6000, plays: None }));

        let mut body = b"WEBP".to_vec();
        let riff_chunk = |kind: &[u8], data: &[u8]| {
            let mut c = kind.to_vec();
            c.extend_from_slice(&(data.len() as u32).to_le_bytes());
            c.extend_from_slice(data);
            if data.len() % 2 == 1 {
                c.push(0);
            }
            c
        };
        body.extend(riff_chunk(b"VP8X", &[2, 0, 0, 0, 0, 0, 0, 0, 0, 0]));
        body.extend(riff_chunk(b"ANIM", &[0, 0, 0, 0, 3, 0]));
        for _ in 0..4 {
            let mut f = vec![0; 17];
            f[12..15].copy_from_slice(&[0xe8, 0x03, 0]); // 1000 ms
            body.extend(riff_chunk(b"ANMF", &f));
        }
        let mut webp = b"RIFF".to_vec();
        webp.extend_from_slice(&(body.len() as u32).to_le_bytes());
        webp.extend(body);
        assert_eq!(parse(&webp), Some(Animation { format: "webp", frames: 4, loop_ms: 4000, plays: Some(3) }));
    }

    #[test]
    fn hostile_bytes_end_the_walk() {
        let full = gif_bytes(&[50; 10], Some(0));
        for cut in 0..full.len() {
            let _ = parse(&full[..cut]);
        }
        // A chunk length that points past the end, a sub-block chain that never ends.
        let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
        png.extend_from_slice(&u32::MAX.to_be_bytes());
        png.extend_from_slice(b"acTL");
        assert_eq!(parse(&png), None);
        assert_eq!(parse(b"GIF89a\x01\x00\x01\x00\x00\x00\x00\x21\xf9\xff\xff"), None);
        assert_eq!(parse(b"not an image"), None);
        // Frames beyond the cap are not counted.
        let many = gif_bytes(&vec![2; (MAX_FRAMES + 10) as usize], Some(0));
        assert_eq!(parse(&many).unwrap().frames, MAX_FRAMES);
    }
}
