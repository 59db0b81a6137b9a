//! `--format junit` (being built: issue 6).

pub fn render(_body: &serde_json::Value, _fail_on: Option<crate::model::Severity>) -> anyhow::Result<String> {
    anyhow::bail!("--format junit is not available yet")
}
