//! Results: rows of the table, one summary line per benchmark, extra tables, and the JSON file.

use serde::Serialize;
use serde_json::Value;

/// One measured number.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub bench: String,
    pub name: String,
    pub value: f64,
    pub unit: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// `Some(true)` met, `Some(false)` missed, `None` no target.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub met: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Everything a run produced.
#[derive(Debug, Default, Serialize)]
pub struct Report {
    pub rows: Vec<Row>,
    pub summaries: Vec<String>,
    /// Preformatted tables printed after the main one (title, lines).
    pub tables: Vec<(String, Vec<String>)>,
    /// Raw per-benchmark data.
    pub data: serde_json::Map<String, Value>,
    pub problems: Vec<String>,
}

impl Report {
    pub fn row(&mut self, bench: &str, name: &str, value: f64, unit: &str) -> &mut Row {
        self.rows.push(Row {
            bench: bench.to_string(),
            name: name.to_string(),
            value,
            unit: unit.to_string(),
            target: None,
            met: None,
            note: None,
        });
        self.rows.last_mut().expect("just pushed")
    }

    pub fn summary(&mut self, line: String) {
        println!("{line}");
        self.summaries.push(line);
    }

    pub fn problem(&mut self, line: String) {
        eprintln!("PROBLEM: {line}");
        self.problems.push(line);
    }

    pub fn table(&mut self, title: &str, lines: Vec<String>) {
        self.tables.push((title.to_string(), lines));
    }

    pub fn data(&mut self, key: &str, value: Value) {
        self.data.insert(key.to_string(), value);
    }

    /// The main table, the extra tables, the summary lines.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let w_bench = self.rows.iter().map(|r| r.bench.len()).max().unwrap_or(5).max(9);
        let w_name = self.rows.iter().map(|r| r.name.len()).max().unwrap_or(10).max(11);
        out.push_str(&format!(
            "{:<w_bench$}  {:<w_name$}  {:>12}  {:<9}  {:<22}  {}\n",
            "benchmark", "measurement", "value", "unit", "target", "met"
        ));
        out.push_str(&format!("{}\n", "-".repeat(w_bench + w_name + 60)));
        let mut last = "";
        for r in &self.rows {
            if !last.is_empty() && last != r.bench {
                out.push('\n');
            }
            last = &r.bench;
            let met = match r.met {
                Some(true) => "yes",
                Some(false) => "NO",
                None => "",
            };
            let mut line = format!(
                "{:<w_bench$}  {:<w_name$}  {:>12}  {:<9}  {:<22}  {met}",
                r.bench,
                r.name,
                fmt_value(r.value),
                r.unit,
                r.target.as_deref().unwrap_or("")
            );
            if let Some(n) = &r.note {
                line.push_str(&format!("  ({n})"));
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        for (title, lines) in &self.tables {
            out.push_str(&format!("\n{title}\n"));
            for l in lines {
                out.push_str(l);
                out.push('\n');
            }
        }
        if !self.summaries.is_empty() {
            out.push_str("\nSummary\n");
            for s in &self.summaries {
                out.push_str(s);
                out.push('\n');
            }
        }
        if !self.problems.is_empty() {
            out.push_str("\nProblems\n");
            for p in &self.problems {
                out.push_str(&format!("- {p}\n"));
            }
        }
        out
    }
}

pub fn fmt_value(v: f64) -> String {
    if !v.is_finite() {
        "n/a".to_string()
    } else if v.abs() >= 1000.0 {
        format!("{v:.0}")
    } else if v.abs() >= 100.0 {
        format!("{v:.1}")
    } else if v.abs() >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

pub fn median(values: &[f64]) -> f64 {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

/// The `p`-quantile (0..=1) by nearest rank.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

pub fn mean(values: &[f64]) -> f64 {
    if values.is_empty() { f64::NAN } else { values.iter().sum::<f64>() / values.len() as f64 }
}

/// Least squares `y = a + b x`: (a, b, r²).
pub fn linear_fit(points: &[(f64, f64)]) -> (f64, f64, f64) {
    let n = points.len() as f64;
    if n < 2.0 {
        return (f64::NAN, f64::NAN, f64::NAN);
    }
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let syy: f64 = points.iter().map(|p| (p.1 - my).powi(2)).sum();
    let b = sxy / sxx;
    let a = my - b * mx;
    let r2 = if syy == 0.0 { 1.0 } else { (sxy * sxy) / (sxx * syy) };
    (a, b, r2)
}
