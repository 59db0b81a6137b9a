//! `--format html` (being built: issue 6).

pub fn render(_body: &serde_json::Value) -> anyhow::Result<String> {
    anyhow::bail!("--format html is not available yet")
}
