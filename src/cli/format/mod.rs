//! One file per `--format`.

pub mod html;
pub mod junit;
pub mod sarif;
pub mod text;
