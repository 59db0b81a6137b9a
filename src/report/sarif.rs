//! `--format sarif` (being built: issue 6).

pub fn render(_body: &serde_json::Value) -> anyhow::Result<String> {
    anyhow::bail!("--format sarif is not available yet")
}
