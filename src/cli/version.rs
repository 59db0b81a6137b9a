//! `sitescan --version`: our version and the embedded axe-core's.

/// `0.1.1 (axe-core 4.14.1)`.
pub fn long_version() -> &'static str {
    static V: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    V.get_or_init(|| format!("{} (axe-core {})", crate::VERSION, crate::browser::axe_version()))
}
