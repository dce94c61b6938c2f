//! Shrinking a diverging program: delta debugging over its statements.

use crate::gen::Program;

/// Removes statements while `still_fails` holds: first chunks (halves, quarters, ...), then
/// single statements, until no single removal keeps the failure or `budget` runs are spent.
/// Returns the smallest program found and the number of runs made.
pub fn shrink(
    program: &Program,
    budget: usize,
    still_fails: &mut dyn FnMut(&Program) -> bool,
) -> (Program, usize) {
    let mut stmts = program.stmts.clone();
    let mut runs = 0;
    let mut granularity = 2usize;
    while stmts.len() >= 2 && runs < budget {
        let chunk = stmts.len().div_ceil(granularity);
        let mut removed = false;
        let mut start = 0;
        while start < stmts.len() && runs < budget {
            let end = (start + chunk).min(stmts.len());
            let mut candidate = stmts.clone();
            candidate.drain(start..end);
            runs += 1;
            if still_fails(&program.with_stmts(candidate.clone())) {
                stmts = candidate;
                removed = true;
                // Retry at the same position: the next chunk moved into it.
            } else {
                start = end;
            }
        }
        if removed {
            granularity = granularity.saturating_sub(1).max(2);
            continue;
        }
        if chunk == 1 {
            break;
        }
        granularity = (granularity * 2).min(stmts.len());
    }
    (program.with_stmts(stmts), runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(n: usize) -> Program {
        Program {
            seed: 0,
            index: 0,
            header: String::new(),
            stmts: (0..n).map(|i| format!("s{i}")).collect(),
        }
    }

    #[test]
    fn reduces_to_the_needed_statements() {
        // A synthetic divergence: needs s3 and s11 together.
        let mut test =
            |p: &Program| p.stmts.contains(&"s3".into()) && p.stmts.contains(&"s11".into());
        let (small, runs) = shrink(&program(20), 500, &mut test);
        assert_eq!(small.stmts, vec!["s3".to_string(), "s11".to_string()]);
        assert!(runs < 100, "{runs} runs");
    }

    #[test]
    fn respects_the_budget() {
        let mut calls = 0;
        let mut test = |_: &Program| {
            calls += 1;
            false
        };
        let (small, runs) = shrink(&program(50), 10, &mut test);
        assert_eq!(runs, 10);
        assert_eq!(small.stmts.len(), 50);
    }
}
