//! Line charts drawn on the server: the coordinates of an inline SVG (the template draws it, so
//! nothing is built as markup text here) and the same numbers as a table, for screen readers and
//! pages read without CSS. One x position per scan, oldest left; every point links to its scan.

/// The drawing area (SVG user units).
const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 220.0;
const LEFT: f64 = 52.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 14.0;
const BOTTOM: f64 = 30.0;

/// A chart ready for the template.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartView {
    /// Unique on the page (element ids).
    pub id: String,
    pub title: String,
    pub width: f64,
    pub height: f64,
    /// The plot's edges.
    pub left: f64,
    pub right: f64,
    pub top: f64,
    pub bottom: f64,
    /// The y axis' top value, as shown.
    pub y_max_label: String,
    /// The first and last scans' dates, under the x axis.
    pub first_label: String,
    pub last_label: String,
    pub series: Vec<SeriesView>,
    /// A threshold line (its y and its label, e.g. `good: 2.5 s`).
    pub threshold: Option<(f64, String)>,
    /// The table: a column per series, a row per scan.
    pub rows: Vec<RowView>,
}

/// One line of a chart.
#[derive(Debug, Clone, PartialEq)]
pub struct SeriesView {
    pub name: String,
    /// The CSS class that colours it (`s-0` ...).
    pub class: String,
    /// `x,y x,y ...` of the measured points (gaps skipped).
    pub points: String,
    pub dots: Vec<Dot>,
}

/// One point: where, what it says, where it links.
#[derive(Debug, Clone, PartialEq)]
pub struct Dot {
    pub x: f64,
    pub y: f64,
    pub label: String,
    pub href: String,
}

/// One scan's row of the table.
#[derive(Debug, Clone, PartialEq)]
pub struct RowView {
    pub label: String,
    pub href: String,
    /// Where this scan is compared with the one before it (none for the first).
    pub compare: Option<String>,
    /// One cell per series (`–` where it was not measured).
    pub cells: Vec<String>,
}

/// A scan on the x axis: its date as shown and its page.
#[derive(Debug, Clone, PartialEq)]
pub struct XPoint {
    pub label: String,
    pub href: String,
    pub compare: Option<String>,
}

/// The smallest "nice" number (1, 2 or 5 times a power of ten) at least `v`.
fn nice_ceiling(v: f64) -> f64 {
    if !(v.is_finite() && v > 0.0) {
        return 1.0;
    }
    let power = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * power).find(|c| *c >= v * (1.0 - 1e-9)).unwrap_or(10.0 * power)
}

/// Builds a chart of `series` (name, one value per scan) over `xs`, values shown by `format`.
pub fn line_chart(
    id: &str,
    title: &str,
    xs: &[XPoint],
    series: &[(String, Vec<Option<f64>>)],
    threshold: Option<(f64, String)>,
    format: fn(f64) -> String,
) -> ChartView {
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let max = series.iter().flat_map(|(_, v)| v.iter().flatten().copied()).chain(threshold.as_ref().map(|(t, _)| *t)).fold(0.0, f64::max);
    let y_max = nice_ceiling(max);
    let x_of = |i: usize| if xs.len() <= 1 { LEFT + plot_w / 2.0 } else { LEFT + plot_w * i as f64 / (xs.len() - 1) as f64 };
    let y_of = |v: f64| TOP + plot_h * (1.0 - (v / y_max).clamp(0.0, 1.0));
    let round = |v: f64| (v * 10.0).round() / 10.0;
    let series_views = series
        .iter()
        .enumerate()
        .map(|(k, (name, values))| {
            let dots: Vec<Dot> = values
                .iter()
                .enumerate()
                .filter_map(|(i, v)| {
                    let v = (*v)?;
                    let x = xs.get(i)?;
                    Some(Dot { x: round(x_of(i)), y: round(y_of(v)), label: format!("{name}: {} ({})", format(v), x.label), href: x.href.clone() })
                })
                .collect();
            let points = dots.iter().map(|d| format!("{},{}", d.x, d.y)).collect::<Vec<_>>().join(" ");
            SeriesView { name: name.clone(), class: format!("s-{k}"), points, dots }
        })
        .collect();
    let rows = xs
        .iter()
        .enumerate()
        .map(|(i, x)| RowView {
            label: x.label.clone(),
            href: x.href.clone(),
            compare: x.compare.clone(),
            cells: series.iter().map(|(_, v)| v.get(i).copied().flatten().map_or_else(|| "–".to_string(), format)).collect(),
        })
        .collect();
    ChartView {
        id: id.to_string(),
        title: title.to_string(),
        width: WIDTH,
        height: HEIGHT,
        left: LEFT,
        right: WIDTH - RIGHT,
        top: TOP,
        bottom: HEIGHT - BOTTOM,
        y_max_label: format(y_max),
        first_label: xs.first().map(|x| x.label.clone()).unwrap_or_default(),
        last_label: xs.last().map(|x| x.label.clone()).unwrap_or_default(),
        series: series_views,
        threshold: threshold.map(|(t, label)| (round(y_of(t)), label)),
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn xs(n: usize) -> Vec<XPoint> {
        (0..n).map(|i| XPoint { label: format!("day {i}"), href: format!("/scans/{i}"), compare: None }).collect()
    }

    #[test]
    fn points_span_the_plot_oldest_left_and_scale_to_a_nice_maximum() {
        let c = line_chart("f", "Findings", &xs(3), &[("high".into(), vec![Some(0.0), Some(7.0), Some(3.0)])], None, |v| format!("{v}"));
        assert_eq!(c.y_max_label, "10");
        let d = &c.series[0].dots;
        assert_eq!(d.len(), 3);
        assert_eq!((d[0].x, d[2].x), (LEFT, WIDTH - RIGHT));
        assert_eq!(d[0].y, HEIGHT - BOTTOM, "zero sits on the x axis");
        assert!((d[1].y - (TOP + (HEIGHT - TOP - BOTTOM) * 0.3)).abs() < 0.1);
        assert_eq!(d[1].href, "/scans/1");
        assert_eq!(d[1].label, "high: 7 (day 1)");
        assert_eq!(c.rows.iter().map(|r| r.cells[0].as_str()).collect::<Vec<_>>(), ["0", "7", "3"]);
        assert_eq!(c.series[0].points.split(' ').count(), 3);
    }

    #[test]
    fn gaps_thresholds_and_one_scan() {
        let c = line_chart("l", "LCP", &xs(1), &[("LCP".into(), vec![None])], Some((2500.0, "good".into())), |v| format!("{v}"));
        assert!(c.series[0].dots.is_empty() && c.series[0].points.is_empty());
        assert_eq!(c.rows[0].cells, ["–"]);
        assert_eq!(c.y_max_label, "5000", "the threshold is in view");
        let (y, _) = c.threshold.clone().unwrap();
        assert!((y - (TOP + (HEIGHT - TOP - BOTTOM) * 0.5)).abs() < 0.1);
        assert_eq!(nice_ceiling(0.0), 1.0);
        assert_eq!(nice_ceiling(0.08), 0.1);
        assert_eq!(nice_ceiling(101.0), 200.0);
    }
}
