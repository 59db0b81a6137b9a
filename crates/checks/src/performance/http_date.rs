//! HTTP dates (RFC 9110 section 5.6.7) to Unix seconds, for `Expires` and `Date` headers.

const MONTHS: [&str; 12] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/// Days from 1970-01-01 to the given civil date (proleptic Gregorian).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn time_of_day(hms: &str) -> Option<i64> {
    let mut parts = hms.split(':').map(|p| p.parse::<i64>().ok());
    let (h, m, s) = (parts.next()??, parts.next()??, parts.next()??);
    ((0..24).contains(&h) && (0..60).contains(&m) && (0..61).contains(&s)).then_some(h * 3600 + m * 60 + s)
}

fn month(name: &str) -> Option<i64> {
    let lower = name.to_ascii_lowercase();
    MONTHS.iter().position(|m| *m == lower).map(|i| i as i64 + 1)
}

fn seconds(year: i64, month: i64, day: i64, time: i64) -> Option<i64> {
    (1..=31).contains(&day).then(|| days_from_civil(year, month, day) * 86_400 + time)
}

/// Parses an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), an RFC 850 date
/// (`Sunday, 06-Nov-94 08:49:37 GMT`) or an asctime date (`Sun Nov  6 08:49:37 1994`).
pub fn parse_http_date(text: &str) -> Option<i64> {
    let text = text.trim();
    if let Some((_, rest)) = text.split_once(',') {
        let fields: Vec<&str> = rest.split_ascii_whitespace().collect();
        match fields.as_slice() {
            // IMF-fixdate: 06 Nov 1994 08:49:37 GMT
            [day, mon, year, time, zone] if zone.eq_ignore_ascii_case("gmt") => {
                seconds(year.parse().ok()?, month(mon)?, day.parse().ok()?, time_of_day(time)?)
            }
            // RFC 850: 06-Nov-94 08:49:37 GMT (two-digit years: 70-99 are 19xx, else 20xx)
            [date, time, zone] if zone.eq_ignore_ascii_case("gmt") => {
                let mut d = date.split('-');
                let (day, mon, year) = (d.next()?, d.next()?, d.next()?);
                let mut year: i64 = year.parse().ok()?;
                if year < 100 {
                    year += if year >= 70 { 1900 } else { 2000 };
                }
                seconds(year, month(mon)?, day.parse().ok()?, time_of_day(time)?)
            }
            _ => None,
        }
    } else {
        let fields: Vec<&str> = text.split_ascii_whitespace().collect();
        match fields.as_slice() {
            [_, mon, day, time, year] => {
                seconds(year.parse().ok()?, month(mon)?, day.parse().ok()?, time_of_day(time)?)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_three_formats() {
        assert_eq!(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"), Some(784_111_777));
        assert_eq!(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"), Some(784_111_777));
        assert_eq!(parse_http_date("Sun Nov  6 08:49:37 1994"), Some(784_111_777));
        assert_eq!(parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0));
        assert_eq!(parse_http_date("Wed, 29 Feb 2028 12:00:00 GMT"), Some(1_835_438_400));
    }

    #[test]
    fn rejects_garbage() {
        for bad in ["0", "-1", "", "tomorrow", "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT"] {
            assert_eq!(parse_http_date(bad), None, "{bad}");
        }
    }
}
