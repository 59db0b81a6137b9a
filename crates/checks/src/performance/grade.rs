//! Two-level thresholds (a metric is "needs improvement" above one limit and "poor" above the
//! other), shared by the Core Web Vitals checks.

use crate::model::Severity;

/// The severity and the limit broken by `value`: `upper_severity` when it is above `upper`,
/// `lower_severity` when above `lower`, `None` otherwise (or when `value` is not a finite number).
pub fn grade(
    value: f64,
    lower: f64,
    lower_severity: Severity,
    upper: f64,
    upper_severity: Severity,
) -> Option<(Severity, f64)> {
    if !value.is_finite() {
        None
    } else if value > upper {
        Some((upper_severity, upper))
    } else if value > lower {
        Some((lower_severity, lower))
    } else {
        None
    }
}

/// Rounds milliseconds to one decimal for evidence.
pub fn round_ms(ms: f64) -> f64 {
    (ms * 10.0).round() / 10.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_the_broken_limit() {
        let g = |v| grade(v, 2500.0, Severity::Medium, 4000.0, Severity::High);
        assert_eq!(g(4000.1), Some((Severity::High, 4000.0)));
        assert_eq!(g(4000.0), Some((Severity::Medium, 2500.0)));
        assert_eq!(g(2500.0), None);
        assert_eq!(g(f64::NAN), None);
        assert_eq!(round_ms(1234.567), 1234.6);
    }
}
