//! Timestamps as stored: microseconds since the Unix epoch, UTC.

use chrono::{DateTime, Datelike, TimeZone, Utc};

/// The current time in microseconds.
pub fn now_us() -> i64 {
    Utc::now().timestamp_micros()
}

/// A stored timestamp as a `DateTime<Utc>`.
pub fn to_datetime(us: i64) -> DateTime<Utc> {
    Utc.timestamp_micros(us).single().unwrap_or(DateTime::<Utc>::UNIX_EPOCH)
}

/// RFC 3339 with microseconds and `Z`, the API's timestamp form.
pub fn to_rfc3339(us: i64) -> String {
    to_datetime(us).to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
}

/// The calendar month (UTC) of a timestamp, `YYYY-MM`, and the first instant of the next month.
pub fn month_of(us: i64) -> (String, DateTime<Utc>) {
    let t = to_datetime(us);
    let (y, m) = if t.month() == 12 { (t.year() + 1, 1) } else { (t.year(), t.month() + 1) };
    let next = Utc.with_ymd_and_hms(y, m, 1, 0, 0, 0).single().unwrap_or(t);
    (format!("{:04}-{:02}", t.year(), t.month()), next)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn month_rolls_over_the_year() {
        let us = Utc.with_ymd_and_hms(2026, 12, 31, 23, 59, 59).unwrap().timestamp_micros();
        let (month, next) = month_of(us);
        assert_eq!(month, "2026-12");
        assert_eq!(next.to_rfc3339(), "2027-01-01T00:00:00+00:00");
        assert_eq!(to_rfc3339(1_700_000_000_123_456), "2023-11-14T22:13:20.123456Z");
    }
}
