//! PostgreSQL: the store teams share (SPEC §11). So far a private server made and removed
//! by the tests and the benchmark ([`scratch`]); the backend itself follows it.

pub mod scratch;
