//! `Retry-After` on a receiver's 429 or 503: the next attempt of a delivery waits at least what
//! the receiver asked for (seconds, or an HTTP-date), never longer than [`RETRY_AFTER_MAX`], and
//! the delivery log says what was asked and what is waited.

use std::time::{Duration, UNIX_EPOCH};

/// The longest wait a receiver's `Retry-After` can impose on one retry.
pub const RETRY_AFTER_MAX: Duration = Duration::from_secs(3600);

/// The answers whose `Retry-After` is honoured: Too Many Requests, Service Unavailable.
pub const HONOURED_STATUSES: [u16; 2] = [429, 503];

/// What a receiver asked for, and the wait it gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryAfter {
    pub asked: Duration,
    /// `asked`, at most [`RETRY_AFTER_MAX`].
    pub wait: Duration,
}

impl RetryAfter {
    /// The line of the delivery log that says so.
    pub fn note(&self) -> String {
        if self.asked > self.wait {
            format!(
                "the receiver asked to wait {} s (Retry-After); the next attempt waits the longest allowed, {} s",
                self.asked.as_secs(),
                self.wait.as_secs()
            )
        } else {
            format!("the receiver asked to wait {} s (Retry-After); the next attempt waits at least that", self.wait.as_secs())
        }
    }
}

/// The wait `value` (a `Retry-After` header) asks for at `now_us`: a number of seconds, or an
/// HTTP-date (a date already past asks for no wait). `None` when it is neither.
pub fn parse(value: &str, now_us: i64) -> Option<Duration> {
    let value = value.trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        // More digits than a u64 holds is still a (very long) wait.
        return Some(Duration::from_secs(value.parse().unwrap_or(u64::MAX)));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    let now = UNIX_EPOCH + Duration::from_micros(u64::try_from(now_us).unwrap_or(0));
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// The `Retry-After` of an answer of `status` at `now_us`, when it is one that honours it and
/// the header can be read.
pub fn of_answer(status: Option<u16>, header: Option<&str>, now_us: i64) -> Option<RetryAfter> {
    let status = status?;
    if !HONOURED_STATUSES.contains(&status) {
        return None;
    }
    let asked = parse(header?, now_us)?;
    Some(RetryAfter { asked, wait: asked.min(RETRY_AFTER_MAX) })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_765_000_000_000_000;

    fn date(offset_s: i64) -> String {
        let t = UNIX_EPOCH + Duration::from_micros(NOW as u64);
        let t = if offset_s >= 0 { t + Duration::from_secs(offset_s as u64) } else { t - Duration::from_secs((-offset_s) as u64) };
        httpdate::fmt_http_date(t)
    }

    #[test]
    fn seconds_and_every_http_date_form_are_read() {
        assert_eq!(parse("120", NOW), Some(Duration::from_secs(120)));
        assert_eq!(parse(" 0 ", NOW), Some(Duration::ZERO));
        assert_eq!(parse("99999999999999999999999", NOW), Some(Duration::from_secs(u64::MAX)));
        assert_eq!(parse(&date(90), NOW), Some(Duration::from_secs(90)));
        assert_eq!(parse(&date(-90), NOW), Some(Duration::ZERO), "a date already past");
        // 2025-12-06 05:46:40 UTC is NOW; the obsolete forms HTTP still accepts.
        assert_eq!(parse("Sat, 06 Dec 2025 05:48:40 GMT", NOW), Some(Duration::from_secs(120)));
        assert_eq!(parse("Saturday, 06-Dec-25 05:48:40 GMT", NOW), Some(Duration::from_secs(120)));
        assert_eq!(parse("Sat Dec  6 05:48:40 2025", NOW), Some(Duration::from_secs(120)));
        for junk in ["", "-5", "1.5", "soon", "120s", "Sat, 06 Dec 2025"] {
            assert_eq!(parse(junk, NOW), None, "{junk:?}");
        }
    }

    #[test]
    fn only_429_and_503_are_honoured_and_the_wait_is_bounded() {
        assert_eq!(of_answer(Some(429), Some("30"), NOW), Some(RetryAfter { asked: Duration::from_secs(30), wait: Duration::from_secs(30) }));
        let long = of_answer(Some(503), Some(&date(7200)), NOW).unwrap();
        assert_eq!((long.asked, long.wait), (Duration::from_secs(7200), RETRY_AFTER_MAX));
        assert!(long.note().contains("7200 s") && long.note().contains("3600 s"), "{}", long.note());
        assert!(of_answer(Some(429), Some("30"), NOW).unwrap().note().contains("30 s"));
        for (status, header) in [(Some(500), Some("30")), (Some(200), Some("30")), (None, Some("30")), (Some(429), None), (Some(429), Some("later"))] {
            assert_eq!(of_answer(status, header, NOW), None, "{status:?} {header:?}");
        }
    }
}
