//! Placeholder until the pruning module lands.
pub const BUDGET_TOKENS: usize = 500;
pub fn tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}
pub fn fits(text: &str, budget: usize) -> bool {
    tokens(text) <= budget
}
pub fn prune(view: &str, budget: usize, _more: &str) -> String {
    let mut out = String::new();
    for line in view.split_inclusive('\n') {
        if tokens(&out) + tokens(line) > budget {
            break;
        }
        out.push_str(line);
    }
    out
}
