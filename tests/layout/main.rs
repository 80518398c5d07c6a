//! The house's layout, checked on the source itself: no source file imports another that
//! imports it back, however long the way round (a strongly connected set of files), and the
//! top modules (`cli`, `web`, `ops`, `db`, `domain`, ...) form no circle either. Every
//! `crate::` and `super::` path of `src/` is resolved to the file that defines its module.
//! And every file is a room of its own size (at most 700 lines) that says what it owns, and
//! `ops/`, which serves both doors, names no flag and no command: the command line words its
//! refusals with them, the counter in the page's language without.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, by its path relative to `src/`.
fn sources(dir: &Path, root: &Path, found: &mut BTreeMap<String, String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, root, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            found.insert(relative, std::fs::read_to_string(&path).unwrap());
        }
    }
}

/// The module path a file defines: `db/orders.rs` is `db::orders`, `db/mod.rs` is `db`.
fn module_of(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file.trim_end_matches(".rs").split('/').map(str::to_string).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts
}

/// The code of a file without its comments and its unit tests (which name their parent).
fn code_of(source: &str) -> String {
    let source = match source.find("#[cfg(test)]\nmod tests") {
        Some(at) => &source[..at],
        None => source,
    };
    source.lines().map(|line| line.split("//").next().unwrap_or_default()).collect::<Vec<_>>().join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The paths a `crate::`/`super::` reference starting at `text` names: `a::b` alone, or each
/// item of a `a::{b, c::d}` group.
fn paths_at(text: &str) -> Vec<Vec<String>> {
    let mut segments = Vec::new();
    let mut rest = text;
    loop {
        let ident: String = rest.chars().take_while(|&c| is_ident(c)).collect();
        if ident.is_empty() {
            break;
        }
        rest = &rest[ident.len()..];
        segments.push(ident);
        match rest.strip_prefix("::") {
            Some(more) => rest = more,
            None => return vec![segments],
        }
    }
    let Some(group) = rest.strip_prefix('{') else { return vec![segments] };
    // The group's items, split at its own commas (not those of a nested group).
    let (mut depth, mut item, mut items) = (0, String::new(), Vec::new());
    for c in group.chars() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(std::mem::take(&mut item));
                continue;
            }
            _ => {}
        }
        item.push(c);
    }
    items.push(item);
    let mut paths = vec![segments.clone()];
    for item in items {
        let item = item.trim();
        if item.is_empty() || item == "self" || item.starts_with('*') {
            continue;
        }
        for sub in paths_at(item) {
            paths.push(segments.iter().cloned().chain(sub).collect());
        }
    }
    paths
}

/// Which file each file refers to.
fn references(files: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let modules: BTreeMap<Vec<String>, String> = files.keys().map(|f| (module_of(f), f.clone())).collect();
    let resolve = |path: &[String]| (1..=path.len()).rev().find_map(|n| modules.get(&path[..n]).cloned());
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, source) in files {
        let me = module_of(file);
        let code = code_of(source);
        let mut at = 0;
        while let Some(found) = code[at..].find(['c', 's']) {
            let start = at + found;
            at = start + 1;
            let before = code[..start].chars().next_back();
            if before.is_some_and(|c| is_ident(c) || c == ':') {
                continue;
            }
            let (base, tail) = if let Some(tail) = code[start..].strip_prefix("crate::") {
                (Vec::new(), tail)
            } else if let Some(tail) = code[start..].strip_prefix("super::") {
                (me[..me.len().saturating_sub(1)].to_vec(), tail)
            } else {
                continue;
            };
            for path in paths_at(tail) {
                let mut base = base.clone();
                let mut path = path.as_slice();
                while path.first().is_some_and(|s| s == "super") {
                    base.pop();
                    path = &path[1..];
                }
                let full: Vec<String> = base.into_iter().chain(path.iter().cloned()).collect();
                if let Some(target) = resolve(&full).filter(|target| target != file) {
                    edges.entry(file.clone()).or_default().insert(target);
                }
            }
        }
    }
    edges
}

/// The strongly connected sets of more than one node (Tarjan).
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        found: Vec<Vec<String>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, node: &'a str) {
            let n = self.index.len();
            self.index.insert(node, n);
            self.low.insert(node, n);
            self.stack.push(node);
            for next in self.edges.get(node).into_iter().flatten() {
                if !self.index.contains_key(next.as_str()) {
                    self.visit(next);
                    let low = self.low[node].min(self.low[next.as_str()]);
                    self.low.insert(node, low);
                } else if self.stack.contains(&next.as_str()) {
                    let low = self.low[node].min(self.index[next.as_str()]);
                    self.low.insert(node, low);
                }
            }
            if self.low[node] == self.index[node] {
                let mut set = Vec::new();
                while let Some(top) = self.stack.pop() {
                    set.push(top.to_string());
                    if top == node {
                        break;
                    }
                }
                if set.len() > 1 {
                    set.sort();
                    self.found.push(set);
                }
            }
        }
    }
    let mut walk =
        Walk { edges, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), found: Vec::new() };
    for node in edges.keys() {
        if !walk.index.contains_key(node.as_str()) {
            walk.visit(node);
        }
    }
    walk.found
}

fn source_files() -> BTreeMap<String, String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = BTreeMap::new();
    sources(&root, &root, &mut files);
    files
}

#[test]
fn no_source_file_imports_one_that_imports_it_back() {
    let edges = references(&source_files());
    assert!(edges.values().map(BTreeSet::len).sum::<usize>() > 200, "the references are read: {edges:?}");
    let circles = circles(&edges);
    assert!(circles.is_empty(), "files in import circles: {circles:?}");
}

#[test]
fn the_top_modules_form_no_circle() {
    let top = |file: &str| file.split('/').next().unwrap_or_default().trim_end_matches(".rs").to_string();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, to) in references(&source_files()) {
        for to in to {
            if top(&from) != top(&to) {
                edges.entry(top(&from)).or_default().insert(top(&to));
            }
        }
    }
    assert!(edges["ops"].contains("db") && edges["web"].contains("ops"), "{edges:?}");
    let circles = circles(&edges);
    assert!(circles.is_empty(), "top modules in circles: {circles:?}");
}

#[test]
fn a_circle_is_found_where_there_is_one() {
    let files: BTreeMap<String, String> = [
        ("a.rs", "use crate::b::{self, Thing};"),
        ("b.rs", "fn f() { super::c::g() }"),
        ("c.rs", "use crate::{a::One, d};"),
        ("d.rs", "// use crate::a;"),
    ]
    .into_iter()
    .map(|(file, code)| (file.to_string(), code.to_string()))
    .collect();
    let edges = references(&files);
    assert!(!edges.contains_key("d.rs"), "a comment imports nothing");
    assert_eq!(circles(&edges), [vec!["a.rs".to_string(), "b.rs".into(), "c.rs".into()]]);
}

#[test]
fn no_source_file_is_over_700_lines() {
    let long: Vec<(String, usize)> = source_files()
        .into_iter()
        .map(|(file, source)| (file, source.lines().count()))
        .filter(|(_, lines)| *lines > 700)
        .collect();
    assert!(long.is_empty(), "a room of its own for each: {long:?}");
}

#[test]
fn every_module_says_what_it_owns() {
    let silent: Vec<String> = source_files()
        .into_iter()
        .filter(|(_, source)| !source.starts_with("//!"))
        .map(|(file, _)| file)
        .collect();
    assert!(silent.is_empty(), "without a //! line: {silent:?}");
}

/// A line that names a command-line flag (`--due`) or a command (`` `receipts send` ``).
fn names_a_flag(line: &str) -> bool {
    line.contains("`receipts ")
        || line
            .match_indices("--")
            .any(|(at, _)| line[at + 2..].starts_with(|c: char| c.is_ascii_lowercase()))
}

#[test]
fn ops_names_no_flag_and_no_command() {
    assert!(names_a_flag(r#"Error::Usage("pass --stringer HANDLE".into())"#));
    assert!(names_a_flag("set it with `receipts order edit 7 --email ...`"));
    assert!(!names_a_flag(r#"format!("{a}--{b}")"#) && !names_a_flag("x -= 1; y-- "));
    let ops: Vec<(String, String)> =
        source_files().into_iter().filter(|(file, _)| file.starts_with("ops/")).collect();
    assert!(ops.len() > 10, "the ops files are read: {}", ops.len());
    let flagged: Vec<String> = ops
        .iter()
        .flat_map(|(file, source)| {
            code_of(source)
                .lines()
                .enumerate()
                .filter(|(_, line)| names_a_flag(line))
                .map(|(at, line)| format!("{file}:{}: {}", at + 1, line.trim()))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(flagged.is_empty(), "ops/ says what is wrong with a type, the doors word it: {flagged:#?}");
}
