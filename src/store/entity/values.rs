//! The model's string enums as column types: a scan's status, mode and trigger, a finding's
//! severity and a user's role are read and written as the model's types. A stored text that
//! is none of the enum's values is a read error naming it, never a silent default.

use crate::model::{Role, ScanMode, ScanStatus, Severity, TriggeredBy};
use sea_orm::sea_query::{ArrayType, ColumnType, Nullable, StringLen, ValueType, ValueTypeErr};
use sea_orm::{ColIdx, DbErr, QueryResult, TryGetError, TryGetable, Value};

macro_rules! text_column {
    ($($t:ty),* $(,)?) => {$(
        impl From<$t> for Value {
            fn from(v: $t) -> Value {
                Value::String(Some(v.as_str().to_string()))
            }
        }

        impl TryGetable for $t {
            fn try_get_by<I: ColIdx>(res: &QueryResult, idx: I) -> Result<Self, TryGetError> {
                let text = String::try_get_by(res, idx)?;
                text.parse::<$t>().map_err(|_| {
                    TryGetError::DbErr(DbErr::Type(format!("stored data is corrupt: {:?} is not a {}", text, stringify!($t))))
                })
            }
        }

        impl ValueType for $t {
            fn try_from(v: Value) -> Result<Self, ValueTypeErr> {
                <String as ValueType>::try_from(v)?.parse::<$t>().map_err(|_| ValueTypeErr)
            }

            fn type_name() -> String {
                stringify!($t).to_owned()
            }

            fn array_type() -> ArrayType {
                ArrayType::String
            }

            fn column_type() -> ColumnType {
                ColumnType::String(StringLen::None)
            }
        }

        impl Nullable for $t {
            fn null() -> Value {
                Value::String(None)
            }
        }

        impl sea_orm::IntoActiveValue<$t> for $t {
            fn into_active_value(self) -> sea_orm::ActiveValue<$t> {
                sea_orm::ActiveValue::Set(self)
            }
        }
    )*};
}

text_column!(ScanStatus, ScanMode, TriggeredBy, Severity, Role);
