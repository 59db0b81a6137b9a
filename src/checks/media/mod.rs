//! media: images, video and audio.

pub mod autoplay_audio;
pub mod image_broken;
pub mod image_legacy_format;
pub mod image_missing_dimensions;
pub mod image_not_lazy;
pub mod image_oversized;
pub mod image_request;
pub mod lcp_image_lazy;
pub mod video_no_captions;

#[cfg(test)]
mod contract_tests;
#[cfg(test)]
mod test_support;

pub use autoplay_audio::AutoplayAudio;
pub use image_broken::ImageBroken;
pub use image_legacy_format::ImageLegacyFormat;
pub use image_missing_dimensions::ImageMissingDimensions;
pub use image_not_lazy::ImageNotLazy;
pub use image_oversized::ImageOversized;
pub use lcp_image_lazy::LcpImageLazy;
pub use video_no_captions::VideoNoCaptions;

/// This category's checks, in catalogue order (the registry joins the categories' lists).
pub static CHECKS: &[&dyn crate::checks::Check] = &[
    &ImageBroken,
    &ImageOversized,
    &ImageLegacyFormat,
    &ImageMissingDimensions,
    &ImageNotLazy,
    &LcpImageLazy,
    &VideoNoCaptions,
    &AutoplayAudio,
];
