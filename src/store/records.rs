//! One handle on a store's records, whichever backend holds them: what
//! [`Store::records`](crate::store::Store::records) and
//! [`Store::change_records`](crate::store::Store::change_records) hand to their closures.
//! Each kind of record has its own interface; this only says where to find each.

use rusqlite::Connection;

use crate::store::edits::EditRecords;
use crate::store::memory::MemoryRecords;
use crate::store::postgres::Tx;
use crate::store::runs::RunRecords;
use crate::store::settings::SettingRecords;
use crate::store::tasks::TaskRecords;

/// The records of one transaction of a store.
pub trait Records {
    fn tasks(&self) -> &dyn TaskRecords;
    fn edits(&self) -> &dyn EditRecords;
    fn settings(&self) -> &dyn SettingRecords;
    fn runs(&self) -> &dyn RunRecords;
    fn memory(&self) -> &dyn MemoryRecords;
}

impl Records for Connection {
    fn tasks(&self) -> &dyn TaskRecords {
        self
    }

    fn edits(&self) -> &dyn EditRecords {
        self
    }

    fn settings(&self) -> &dyn SettingRecords {
        self
    }

    fn runs(&self) -> &dyn RunRecords {
        self
    }

    fn memory(&self) -> &dyn MemoryRecords {
        self
    }
}

impl Records for Tx<'_> {
    fn tasks(&self) -> &dyn TaskRecords {
        self
    }

    fn edits(&self) -> &dyn EditRecords {
        self
    }

    fn settings(&self) -> &dyn SettingRecords {
        self
    }

    fn runs(&self) -> &dyn RunRecords {
        self
    }

    fn memory(&self) -> &dyn MemoryRecords {
        self
    }
}
