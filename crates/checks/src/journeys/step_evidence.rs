//! The evidence every `journeys.*` finding starts with: the page URL, the journey, the step.

use crate::model::JourneyOutcome;
use serde_json::{Map, Value, json};

/// `url` (where the page was after the step), `journey`, `step_index`, `step` (the masked
/// summary) and, when the step acts on an element, `selector`.
pub fn of_step(journey: &JourneyOutcome, index: usize) -> Map<String, Value> {
    let mut ev = Map::new();
    ev.insert("url".into(), json!(journey.url_at(index)));
    ev.insert("journey".into(), json!(journey.name));
    ev.insert("step_index".into(), json!(index));
    if let Some(step) = journey.step(index) {
        ev.insert("step".into(), json!(step.summary));
        if let Some(sel) = &step.selector {
            ev.insert("selector".into(), json!(sel));
        }
    }
    ev
}
