//! Counted nouns in the sentences reconscope writes: `1 worker`,
//! `2 workers`, `0 findings`, in every output (findings, notes, the CLI's
//! summary, the Markdown, the page, the chart's labels), so none says
//! `1 files` or `object(s)`. A sentence whose words around the number
//! change with it (`the worker` / `2 workers`) writes both forms itself.

use std::fmt::Display;

/// `n` and the noun for it: `one` when `n` is 1, else `many`
/// (`plural(1, "reconcile was", "reconciles were")`).
pub fn plural<N: Display + PartialEq + From<u8>>(n: N, one: &str, many: &str) -> String {
    let noun = if n == N::from(1) { one } else { many };
    format!("{n} {noun}")
}

#[cfg(test)]
mod tests {
    use super::plural;

    #[test]
    fn one_takes_the_singular_and_every_other_count_the_plural() {
        assert_eq!(plural(0usize, "file", "files"), "0 files");
        assert_eq!(plural(1usize, "file", "files"), "1 file");
        assert_eq!(plural(2u64, "file", "files"), "2 files");
        assert_eq!(plural(1u32, "reconcile was", "reconciles were"), "1 reconcile was");
        assert_eq!(plural(11u64, "line", "lines"), "11 lines");
    }
}
