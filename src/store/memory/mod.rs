//! Memory in the store: sessions and their entries, with a full-text index over entry
//! content, session titles and summaries kept in the same transactions.

pub mod record;
