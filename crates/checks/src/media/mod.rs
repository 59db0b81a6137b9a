//! media: images, video and audio.

pub mod image_request;

#[cfg(test)]
mod contract_tests;
#[cfg(test)]
mod test_support;

// This category's checks, in catalogue order: each line is a check's file and its type.
crate::category_checks! {
    image_broken::ImageBroken,
    image_oversized::ImageOversized,
    image_legacy_format::ImageLegacyFormat,
    image_missing_dimensions::ImageMissingDimensions,
    image_not_lazy::ImageNotLazy,
    lcp_image_lazy::LcpImageLazy,
    video_no_captions::VideoNoCaptions,
    transcript_missing::TranscriptMissing,
    autoplay_audio::AutoplayAudio,
}
