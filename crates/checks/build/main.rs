//! The checks crate's build script: generates the schema.org vocabulary and the axe-core rule
//! catalogue (`accessibility.<rule>` ids) from the npm packages in `browser/`.

use std::path::PathBuf;

mod axe_rules;
mod schema_org;

fn main() {
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let browser_dir = sitescan_build_support::browser_dir();
    schema_org::generate(&browser_dir, &out_dir);
    axe_rules::generate(&browser_dir, &out_dir);
}
