//! `--format html` (being built: issue 6).

pub fn render(_body: &serde_json::Value) -> String {
    String::new()
}
