//! The browser app's state core, in plain Rust and tested natively: the
//! page's state and transitions (`state`: `AppState`, `Action`, `reduce`
//! returning `Effect`s), the view in the URL fragment (`fragment`) and the
//! inspector's fields view (`fields`). The Yew components in
//! `src/bin/app/` render this state and dispatch actions; only they know
//! web-sys.

pub mod fields;
pub mod fragment;
pub mod state;

pub use state::{Action, AppState, ChartCmd, Copy, Effect, FilterChange, InputInfo, Target, Timer, Update, WorkerId};
