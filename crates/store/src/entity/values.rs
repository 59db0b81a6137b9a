//! The model's string enums as column types: a scan's status, mode and trigger and a finding's
//! severity are stored as their text and read back as the model's types, through [`Text`]. A
//! stored text that is none of the enum's values is a read error naming it, never a silent
//! default. (The model's crate knows no database; the wrapper is the store's.)

use sea_orm::sea_query::{ArrayType, ColumnType, Nullable, StringLen, ValueType, ValueTypeErr};
use sea_orm::{ColIdx, DbErr, QueryResult, TryGetError, TryGetable, Value};
use std::fmt::Display;
use std::str::FromStr;

/// A column holding one of the model's string enums (`ScanStatus`, `Severity`, ...) as its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Text<T>(pub T);

impl<T: Display> From<Text<T>> for Value {
    fn from(v: Text<T>) -> Value {
        Value::String(Some(v.0.to_string()))
    }
}

fn parse<T: FromStr>(text: &str) -> Result<T, String> {
    text.parse::<T>().map_err(|_| format!("stored data is corrupt: {text:?} is not a {}", short_name::<T>()))
}

fn short_name<T>() -> &'static str {
    std::any::type_name::<T>().rsplit("::").next().unwrap_or("value")
}

impl<T: FromStr> TryGetable for Text<T> {
    fn try_get_by<I: ColIdx>(res: &QueryResult, idx: I) -> Result<Self, TryGetError> {
        let text = String::try_get_by(res, idx)?;
        parse(&text).map(Text).map_err(|e| TryGetError::DbErr(DbErr::Type(e)))
    }
}

impl<T: FromStr> ValueType for Text<T> {
    fn try_from(v: Value) -> Result<Self, ValueTypeErr> {
        parse(&<String as ValueType>::try_from(v)?).map(Text).map_err(|_| ValueTypeErr)
    }

    fn type_name() -> String {
        short_name::<T>().to_owned()
    }

    fn array_type() -> ArrayType {
        ArrayType::String
    }

    fn column_type() -> ColumnType {
        ColumnType::String(StringLen::None)
    }
}

impl<T> Nullable for Text<T> {
    fn null() -> Value {
        Value::String(None)
    }
}

impl<T: Display> sea_orm::IntoActiveValue<Text<T>> for Text<T> {
    fn into_active_value(self) -> sea_orm::ActiveValue<Text<T>> {
        sea_orm::ActiveValue::Set(self)
    }
}
