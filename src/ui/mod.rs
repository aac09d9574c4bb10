//! The browser app's state core, in plain Rust and tested natively: the
//! page's state and transitions (`state`: `AppState`, `Action`, `reduce`
//! returning `Effect`s), the view in the URL fragment (`fragment`), the
//! inspector's fields view (`fields`) and the panels' counted headings.
//! The Yew components in `src/bin/app/` render this state and dispatch
//! actions; only they know web-sys.

pub mod fields;
pub mod fragment;
pub mod state;

pub use state::{Action, AppState, ChartCmd, Copy, Effect, FilterChange, InputInfo, Target, Timer, Update, WorkerId};

/// The goroutine panel's heading: `Goroutines (1 dump, 7 stack groups)`,
/// each count with its noun in the singular or the plural.
pub fn goroutines_heading(dumps: usize, stack_groups: usize) -> String {
    use crate::words::plural;
    format!("Goroutines ({}, {})", plural(dumps, "dump", "dumps"), plural(stack_groups, "stack group", "stack groups"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_goroutine_heading_counts_in_words() {
        assert_eq!(super::goroutines_heading(1, 1), "Goroutines (1 dump, 1 stack group)");
        assert_eq!(super::goroutines_heading(1, 7), "Goroutines (1 dump, 7 stack groups)");
        assert_eq!(super::goroutines_heading(2, 1), "Goroutines (2 dumps, 1 stack group)");
    }
}
