//! Keyset pagination, the one way the store pages a list: newest first by (created_at, id), a
//! page of `limit` rows after an opaque cursor, and the cursor of the next page while there is
//! one. Deep pages cost what the first page costs (the predicate seeks the index).

use super::Store;
use super::cursor::{CursorKind, Position};
use super::error::StoreResult;
use sea_orm::{ColumnTrait, Condition, EntityTrait, QueryFilter, QueryOrder, QuerySelect, Select};

/// A page of rows and the cursor of the next page (None on the last page).
#[derive(Debug)]
pub struct Page<T> {
    pub rows: Vec<T>,
    pub next_cursor: Option<String>,
}

impl<T> Page<T> {
    /// The same page with each row converted (a table's entity into the model's row).
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Page<U> {
        Page { rows: self.rows.into_iter().map(f).collect(), next_cursor: self.next_cursor }
    }
}

/// The keyset predicate "strictly after `pos` in (created_at desc, id desc) order".
fn after<C: ColumnTrait>(created: C, id: C, pos: Position) -> Condition {
    // `created <= c AND (created < c OR id < i)`, the same rows as `created < c OR (created = c
    // AND id < i)`, but with a leading range bound the (org, created_at desc, id desc) index can
    // seek to: the OR form alone made SQLite walk the index from the newest row, so a page deep
    // in a million findings cost a scan of everything before it.
    Condition::all()
        .add(created.lte(pos.created_at))
        .add(Condition::any().add(created.lt(pos.created_at)).add(id.lt(pos.id)))
}

/// How a list pages: its cursor kind, its (created_at, id) columns, and a row's position.
pub(super) struct Keyset<E: EntityTrait> {
    pub kind: CursorKind,
    pub created_at: E::Column,
    pub id: E::Column,
    pub position: fn(&E::Model) -> Position,
}

impl Store {
    /// One page of `query` (already filtered), `limit` rows after `cursor`.
    pub(super) async fn keyset_page<E: EntityTrait>(
        &self,
        query: Select<E>,
        keys: Keyset<E>,
        limit: u64,
        cursor: Option<Position>,
    ) -> StoreResult<Page<E::Model>> {
        let query = match cursor {
            Some(pos) => query.filter(after(keys.created_at, keys.id, pos)),
            None => query,
        };
        let mut rows = query.order_by_desc(keys.created_at).order_by_desc(keys.id).limit(limit + 1).all(self.conn()).await?;
        let next_cursor = if rows.len() as u64 > limit {
            rows.truncate(limit as usize);
            rows.last().map(|r| self.cursors().encode(keys.kind, (keys.position)(r)))
        } else {
            None
        };
        Ok(Page { rows, next_cursor })
    }
}
