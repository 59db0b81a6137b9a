//! The shapes schema.org values must have: ISO 8601 dates, times and durations, absolute URLs,
//! plain decimal prices.

use regex::Regex;
use std::sync::LazyLock;

static DATE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$").expect("date regex"));
static TIME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?$")
        .expect("time regex")
});
static DURATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^-?P(?:\d+(?:[.,]\d+)?Y)?(?:\d+(?:[.,]\d+)?M)?(?:\d+(?:[.,]\d+)?W)?(?:\d+(?:[.,]\d+)?D)?(?:T(?:\d+(?:[.,]\d+)?H)?(?:\d+(?:[.,]\d+)?M)?(?:\d+(?:[.,]\d+)?S)?)?$")
        .expect("duration regex")
});
static PRICE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\d+(?:\.\d+)?$").expect("price regex"));

/// An ISO 8601 calendar date: `2024`, `2024-05`, `2024-05-31`.
pub fn is_iso_date(s: &str) -> bool {
    let Some(c) = DATE.captures(s.trim()) else {
        return false;
    };
    let month = c.get(2).map_or(Ok(1), |m| m.as_str().parse::<u32>());
    let day = c.get(3).map_or(Ok(1), |d| d.as_str().parse::<u32>());
    matches!((month, day), (Ok(m), Ok(d)) if (1..=12).contains(&m) && (1..=31).contains(&d))
}

/// An ISO 8601 time of day, optionally with seconds, fraction and offset: `08:00`, `23:59:59Z`.
pub fn is_iso_time(s: &str) -> bool {
    let Some(c) = TIME.captures(s.trim()) else {
        return false;
    };
    let field = |i: usize| c.get(i).map_or(Ok(0), |m| m.as_str().parse::<u32>());
    matches!((field(1), field(2), field(3)), (Ok(h), Ok(m), Ok(sec)) if h <= 24 && m <= 59 && sec <= 60)
}

/// An ISO 8601 date, or date and time joined by `T`: `2024-05-31T08:00:00+02:00`.
pub fn is_iso_datetime(s: &str) -> bool {
    let t = s.trim();
    match t.split_once('T') {
        Some((date, time)) => date.len() == 10 && is_iso_date(date) && is_iso_time(time),
        None => is_iso_date(t),
    }
}

/// An ISO 8601 duration: `PT1H30M`, `P3D`, `PT45S`.
pub fn is_iso_duration(s: &str) -> bool {
    let t = s.trim();
    DURATION.is_match(t) && t.len() > 1 && !t.ends_with('T') && t != "-P"
}

/// An absolute URL (with a scheme).
pub fn is_absolute_url(s: &str) -> bool {
    url::Url::parse(s.trim()).is_ok()
}

/// A price as search engines want it: digits with an optional `.` decimal part, no currency
/// symbol or thousands separator.
pub fn is_plain_price(s: &str) -> bool {
    PRICE.is_match(s.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_times() {
        for ok in [
            "2024",
            "2024-05",
            "2024-05-31",
            "2024-05-31T08:00",
            "2024-05-31T08:00:00Z",
            "2024-05-31T08:00:00.123+02:00",
            "2024-01-05T08:00:00+0800",
        ] {
            assert!(is_iso_datetime(ok), "{ok}");
        }
        for bad in [
            "31/05/2024",
            "May 31, 2024",
            "2024-13-01",
            "2024-05-31 8pm",
            "yesterday",
            "2024-5-3",
            "",
        ] {
            assert!(!is_iso_datetime(bad), "{bad}");
        }
        assert!(is_iso_time("19:30") && !is_iso_time("7pm"));
    }

    #[test]
    fn durations_urls_prices() {
        assert!(is_iso_duration("PT1H30M") && is_iso_duration("P3D") && is_iso_duration("PT0.5S"));
        assert!(
            !is_iso_duration("90 minutes")
                && !is_iso_duration("P")
                && !is_iso_duration("PT")
                && !is_iso_duration("1:30")
        );
        assert!(
            is_absolute_url("https://e.com/a.jpg")
                && !is_absolute_url("/a.jpg")
                && !is_absolute_url("a.jpg")
        );
        assert!(
            is_plain_price("19.99")
                && is_plain_price("0")
                && !is_plain_price("$19.99")
                && !is_plain_price("1,299.00")
                && !is_plain_price("19,99")
        );
    }
}
