//! Judging a name's words: the pure helpers the descriptive-name checks share (an image's
//! accessible name, a page's title). English only: the stop words and the stemming are English,
//! so callers judge content words only where the page's language is English or unknown.
//!
//! `is_file_name` and `is_generic_image_name` are meant for any check judging alt text.

/// Words that carry no topic (articles, pronouns, prepositions, auxiliaries).
const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by", "can", "could", "did", "do",
    "does", "for", "from", "had", "has", "have", "he", "her", "here", "his", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my",
    "no", "not", "of", "on", "or", "our", "out", "over", "she", "so", "than", "that", "the", "their", "them", "then", "there", "these",
    "they", "this", "those", "through", "to", "up", "us", "was", "we", "were", "what", "when", "where", "which", "while", "who", "why",
    "will", "with", "would", "you", "your",
];

/// Names that say only that something is an image.
const GENERIC_IMAGE_WORDS: &[&str] = &[
    "image", "img", "picture", "pic", "photo", "photograph", "graphic", "icon", "logo", "banner", "spacer", "placeholder", "thumbnail",
    "thumb", "untitled", "alt", "figure", "illustration", "default", "blank", "pixel", "screenshot",
];

/// Image file extensions a file-name alt ends with.
const IMAGE_EXTENSIONS: &[&str] = &["png", "jpg", "jpeg", "gif", "webp", "avif", "svg", "bmp", "tif", "tiff", "ico", "heic"];

/// The words of `text`, lowercased: runs of letters and digits.
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

/// True for a word that carries no topic.
pub fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.contains(&word)
}

/// A light English stem: plural and verb endings off (`harvesting` -> `harvest`, `clementines`
/// -> `clementine`), never below three letters.
pub fn stem(word: &str) -> String {
    let w = word.to_lowercase();
    for suffix in ["ing", "ies", "es", "ed", "s"] {
        if let Some(base) = w.strip_suffix(suffix)
            && base.chars().count() >= 3
            && !(suffix == "s" && base.ends_with('s'))
        {
            return match suffix {
                "ies" => format!("{base}y"),
                // `clementines` -> `clementin` would miss `clementine`: `es` only after s, x, z, ch, sh.
                "es" if !(base.ends_with('s') || base.ends_with('x') || base.ends_with('z') || base.ends_with("ch") || base.ends_with("sh")) => {
                    format!("{base}e")
                }
                _ => base.to_string(),
            };
        }
    }
    w
}

/// The stems of `text`'s words that carry a topic (stop words and one-letter words left out).
pub fn content_words(text: &str) -> Vec<String> {
    words(text).into_iter().filter(|w| w.chars().count() >= 2 && !is_stop_word(w)).map(|w| stem(&w)).collect()
}

/// True when two stems are the same word, give or take an ending the stemmer left (one is the
/// other's start, five letters or more).
pub fn same_word(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short.chars().count() >= 5 && long.starts_with(short)
}

/// True when two tokens read as the same, allowing one letter of recognition error in tokens of
/// three letters or more (`W3C` read `WSC`).
pub fn similar_token(a: &str, b: &str) -> bool {
    if same_word(a, b) {
        return true;
    }
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    a.len().min(b.len()) >= 3 && edit_distance(&a, &b) <= 1
}

fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// True when `name` is a file name (`IMG_2041.JPG`, `hero-banner.png`) or a camera's default
/// name (`DSC_0042`, `IMG_20240101_120000`, `PXL_20231224`).
pub fn is_file_name(name: &str) -> bool {
    let n = name.trim();
    if n.is_empty() || n.contains(char::is_whitespace) && !n.contains('.') {
        return false;
    }
    if let Some((stem, ext)) = n.rsplit_once('.')
        && !stem.is_empty()
        && !stem.contains(' ')
        && IMAGE_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str())
    {
        return true;
    }
    let upper = n.to_ascii_uppercase();
    ["IMG_", "IMG-", "DSC_", "DSC", "DSCN", "PXL_", "DCIM", "SAM_", "GOPR"].iter().any(|p| {
        upper.strip_prefix(p).is_some_and(|rest| rest.chars().next().is_some_and(|c| c.is_ascii_digit()) && rest.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'))
    })
}

/// True when `name` says only that there is an image: generic words (`image`, `photo`,
/// `icon`), with articles and numbers at most (`image 3`, `a picture`).
pub fn is_generic_image_name(name: &str) -> bool {
    let ws = words(name);
    let mut generic = false;
    for w in &ws {
        if GENERIC_IMAGE_WORDS.contains(&w.as_str()) || GENERIC_IMAGE_WORDS.contains(&stem(w).as_str()) {
            generic = true;
        } else if !(w.chars().all(|c| c.is_ascii_digit()) || matches!(w.as_str(), "a" | "an" | "the" | "of" | "small" | "large")) {
            return false;
        }
    }
    generic
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_meet_across_endings() {
        assert_eq!(stem("harvesting"), "harvest");
        assert_eq!(stem("clementines"), "clementine");
        assert_eq!(stem("Clementine"), "clementine");
        assert_eq!(stem("boxes"), "box");
        assert_eq!(stem("stories"), "story");
        assert_eq!(stem("glass"), "glass");
        assert_eq!(stem("is"), "is");
        assert!(same_word("harvest", "harvester"));
        assert!(!same_word("app", "apple"));
        assert_eq!(content_words("The Apple harvesting season"), vec!["apple", "harvest", "season"]);
    }

    #[test]
    fn recognition_errors_of_one_letter_are_forgiven() {
        assert!(similar_token("w3c", "wsc"));
        assert!(!similar_token("w3c", "ercim"));
        assert!(!similar_token("ab", "ac"));
    }

    #[test]
    fn file_names_and_camera_names() {
        for n in ["IMG_2041.JPG", "hero-banner.png", "DSC_0042", "IMG_20240101_120000", "photo.webp", "PXL_20231224"] {
            assert!(is_file_name(n), "{n}");
        }
        for n in ["W3C logo", "Fireworks over Paris", "Version 2.0", "img", "A.B. Smith", "DSCOVR satellite"] {
            assert!(!is_file_name(n), "{n}");
        }
    }

    #[test]
    fn generic_words_alone() {
        for n in ["image", "Photo", "an icon", "image 3", "Picture", "logo", "images"] {
            assert!(is_generic_image_name(n), "{n}");
        }
        for n in ["W3C logo", "Photo of the team", "", "3", "Icon set designer Jane"] {
            assert!(!is_generic_image_name(n), "{n}");
        }
    }
}
