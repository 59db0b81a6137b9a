//! Opaque, signed keyset cursors: the last row's (created_at, id) and which list they belong to,
//! HMAC-SHA256-signed with the database's key so every instance accepts every instance's cursors
//! and a tampered cursor is refused.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use uuid::Uuid;

const TAG_LEN: usize = 16;
const PAYLOAD_LEN: usize = 1 + 8 + 16;

/// Which list a cursor pages through (a scans cursor is refused by the findings list).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CursorKind {
    Scans = 1,
    Findings = 2,
    History = 3,
}

/// The position after which the next page starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub created_at: i64,
    pub id: Uuid,
}

/// The cursor was not one we issued (malformed, tampered with, or for another list).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cursor is malformed or was not issued by this service")]
pub struct BadCursor;

/// Encodes and verifies cursors with one key.
#[derive(Clone)]
pub struct CursorCodec {
    key: Vec<u8>,
}

impl std::fmt::Debug for CursorCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CursorCodec(..)")
    }
}

impl CursorCodec {
    pub fn new(key: &[u8]) -> Self {
        CursorCodec { key: key.to_vec() }
    }

    fn tag(&self, payload: &[u8]) -> [u8; TAG_LEN] {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.key).expect("HMAC takes any key length");
        mac.update(payload);
        let full = mac.finalize().into_bytes();
        let mut tag = [0u8; TAG_LEN];
        tag.copy_from_slice(&full[..TAG_LEN]);
        tag
    }

    pub fn encode(&self, kind: CursorKind, pos: Position) -> String {
        let mut bytes = Vec::with_capacity(PAYLOAD_LEN + TAG_LEN);
        bytes.push(kind as u8);
        bytes.extend_from_slice(&pos.created_at.to_be_bytes());
        bytes.extend_from_slice(pos.id.as_bytes());
        let tag = self.tag(&bytes);
        bytes.extend_from_slice(&tag);
        URL_SAFE_NO_PAD.encode(bytes)
    }

    pub fn decode(&self, kind: CursorKind, cursor: &str) -> Result<Position, BadCursor> {
        if cursor.len() > 128 {
            return Err(BadCursor);
        }
        let bytes = URL_SAFE_NO_PAD.decode(cursor).map_err(|_| BadCursor)?;
        if bytes.len() != PAYLOAD_LEN + TAG_LEN {
            return Err(BadCursor);
        }
        let (payload, tag) = bytes.split_at(PAYLOAD_LEN);
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.key).expect("HMAC takes any key length");
        mac.update(payload);
        mac.verify_truncated_left(tag).map_err(|_| BadCursor)?;
        if payload[0] != kind as u8 {
            return Err(BadCursor);
        }
        let created_at = i64::from_be_bytes(payload[1..9].try_into().map_err(|_| BadCursor)?);
        let id = Uuid::from_slice(&payload[9..25]).map_err(|_| BadCursor)?;
        Ok(Position { created_at, id })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_tampering() {
        let codec = CursorCodec::new(b"k1");
        let pos = Position { created_at: 1_700_000_000_000_001, id: Uuid::now_v7() };
        let c = codec.encode(CursorKind::Scans, pos);
        assert_eq!(codec.decode(CursorKind::Scans, &c), Ok(pos));
        assert_eq!(codec.decode(CursorKind::Findings, &c), Err(BadCursor));
        assert_eq!(CursorCodec::new(b"k2").decode(CursorKind::Scans, &c), Err(BadCursor));
        let mut bytes = URL_SAFE_NO_PAD.decode(&c).unwrap();
        bytes[3] ^= 1;
        assert_eq!(codec.decode(CursorKind::Scans, &URL_SAFE_NO_PAD.encode(bytes)), Err(BadCursor));
        for junk in ["", "abc", "!!!!", &"A".repeat(500)] {
            assert_eq!(codec.decode(CursorKind::Scans, junk), Err(BadCursor));
        }
    }
}
