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

// TEMP until the web::filters merge.
pub(crate) fn parse_duration_text(t: &str) -> Result<i64, String> {
    let t = t.trim();
    let (num, unit) = t.split_at(t.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(t.len()));
    let n: f64 = num.parse().map_err(|_| format!("not a duration: {t}"))?;
    let mul = match unit.trim() {
        "ms" => 1e6,
        "s" | "" => 1e9,
        "m" | "min" => 60e9,
        "h" => 3600e9,
        _ => return Err(format!("not a duration: {t}")),
    };
    Ok((n * mul) as i64)
}

pub(crate) fn reconciles_longer_than(r: &[crate::analyze::Reconcile], min: i64) -> Vec<u32> {
    r.iter().enumerate().filter(|(_, x)| !x.is_one_line() && x.last.nanos - x.start().nanos > min).map(|(i, _)| i as u32).collect()
}
