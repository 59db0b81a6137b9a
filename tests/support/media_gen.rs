//! Binary fixture assets generated in the test instead of committed: PNGs of a given size (stored,
//! so their byte size is predictable: about width x height x 3), a WAV of a given length, a 1x1 GIF, animated GIFs.

#![allow(dead_code)]

use std::io::Write;

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xedb8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let mut body = kind.to_vec();
    body.extend_from_slice(data);
    out.extend_from_slice(&body);
    out.extend_from_slice(&crc32(&body).to_be_bytes());
}

/// An RGB PNG of `width` x `height` with a colour gradient, zlib "stored" (not compressed): the
/// file is about `width * height * 3` bytes.
pub fn png(width: u32, height: u32) -> Vec<u8> {
    let mut raw = Vec::with_capacity(((width * 3 + 1) * height) as usize);
    for y in 0..height {
        raw.push(0); // filter: none
        for x in 0..width {
            raw.extend_from_slice(&[
                (x * 255 / width.max(1)) as u8,
                (y * 255 / height.max(1)) as u8,
                ((x ^ y) & 0xff) as u8,
            ]);
        }
    }
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::none());
    z.write_all(&raw).unwrap();
    let idat = z.finish().unwrap();
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]); // 8-bit RGB
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(&mut out, b"IDAT", &idat);
    chunk(&mut out, b"IEND", &[]);
    out
}

/// A mono 8 kHz 8-bit PCM WAV of `seconds` with a quiet tone.
pub fn wav(seconds: f64) -> Vec<u8> {
    let rate = 8000u32;
    let samples = (f64::from(rate) * seconds) as u32;
    let mut out = Vec::with_capacity(44 + samples as usize);
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + samples).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes()); // PCM
    out.extend_from_slice(&1u16.to_le_bytes()); // mono
    out.extend_from_slice(&rate.to_le_bytes());
    out.extend_from_slice(&rate.to_le_bytes()); // byte rate
    out.extend_from_slice(&1u16.to_le_bytes()); // block align
    out.extend_from_slice(&8u16.to_le_bytes()); // bits per sample
    out.extend_from_slice(b"data");
    out.extend_from_slice(&samples.to_le_bytes());
    for i in 0..samples {
        let t = f64::from(i) / f64::from(rate);
        out.push((128.0 + 20.0 * (t * 440.0 * std::f64::consts::TAU).sin()) as u8);
    }
    out
}

/// A transparent 1x1 GIF.
pub const GIF_1X1: &[u8] = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff\x21\xf9\x04\x01\x00\x00\x00\x00\x2c\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02\x44\x01\x00\x3b";

/// A GIF of 200 x 100 frames (one colour each) with these delays in centiseconds, looping
/// `loops` times after the first play (`Some(0)`: forever; `None`: no loop extension, once).
pub fn gif(delays_cs: &[u16], loops: Option<u16>) -> Vec<u8> {
    let mut g = b"GIF89a\xc8\x00\x64\x00\x81\x00\x00".to_vec();
    g.extend_from_slice(&[0x0b, 0x4f, 0x8a, 0xb3, 0x59, 0x00, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00]);
    if let Some(n) = loops {
        g.extend_from_slice(b"\x21\xff\x0bNETSCAPE2.0\x03\x01");
        g.extend_from_slice(&n.to_le_bytes());
        g.push(0);
    }
    for (i, d) in delays_cs.iter().enumerate() {
        g.extend_from_slice(b"\x21\xf9\x04\x00");
        g.extend_from_slice(&d.to_le_bytes());
        g.extend_from_slice(b"\x00\x00");
        // A 1x1 frame of colour i at the top left corner (the rest keeps the first frame).
        g.extend_from_slice(b"\x2c\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02");
        g.push(if i % 2 == 0 { 0x44 } else { 0x4c });
        g.extend_from_slice(b"\x01\x00");
    }
    g.push(0x3b);
    g
}
