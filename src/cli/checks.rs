//! `sitescan checks`: the catalogue, from the registry.

use super::args::{ChecksArgs, ChecksFormat};
use crate::checks::catalogue;
use serde_json::json;

pub fn run(args: ChecksArgs) -> anyhow::Result<()> {
    match args.format {
        ChecksFormat::Json => {
            let list: Vec<_> = catalogue()
                .map(|m| {
                    json!({
                        "id": m.id,
                        "category": m.category(),
                        "severity": m.severity,
                        "title": m.title,
                        "fires_when": m.fires_when,
                        "description": m.description,
                        "remediation": m.remediation,
                        "cwe_id": m.cwe_id,
                        "evidence": m.evidence_keys,
                        "help_url": m.help_url,
                        "requires": m.requires.iter().map(|a| a.gatherer()).collect::<Vec<_>>(),
                        "act_ids": m.act_ids,
                        "level": m.level,
                        "wcag": m.wcag,
                    })
                })
                .collect();
            println!("{}", serde_json::to_string_pretty(&list)?);
        }
        ChecksFormat::Markdown => print!("{}", crate::checks::catalogue_markdown::render()),
        ChecksFormat::Text => {
            let mut category = "";
            for m in catalogue() {
                if m.category() != category {
                    category = m.category();
                    println!("\n{category}");
                }
                println!("  {:<48} {:<8} {:<4} {}", m.id, m.severity.as_str(), m.level.map_or("", |l| l.as_str()), m.title);
            }
        }
    }
    Ok(())
}
