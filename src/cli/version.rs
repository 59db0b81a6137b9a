//! `sitescan --version`: our version and the embedded axe-core's.

/// The embedded axe-core version.
pub const AXE_VERSION: &str = include_str!(concat!(env!("OUT_DIR"), "/axe_version.txt"));

/// `0.1.0 (axe-core 4.14.1)`.
pub fn long_version() -> &'static str {
    static V: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    V.get_or_init(|| format!("{} (axe-core {})", crate::VERSION, AXE_VERSION.trim()))
}
