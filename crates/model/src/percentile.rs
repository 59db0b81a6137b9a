//! The 75th percentile, as CrUX and the dashboard's charts read Core Web Vitals over pages.

/// The 75th percentile of `values` (nearest rank, as CrUX reports it); `None` when empty.
pub fn p75(values: &mut [f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let rank = (0.75 * values.len() as f64).ceil() as usize;
    Some(values[rank.clamp(1, values.len()) - 1])
}

#[cfg(test)]
mod tests {
    use super::p75;

    #[test]
    fn the_75th_percentile_is_the_nearest_rank() {
        assert_eq!(p75(&mut []), None);
        assert_eq!(p75(&mut [5.0]), Some(5.0));
        assert_eq!(p75(&mut [4.0, 1.0, 3.0, 2.0]), Some(3.0));
        assert_eq!(p75(&mut [1.0, 2.0, 3.0, 4.0, 5.0]), Some(4.0));
    }
}
