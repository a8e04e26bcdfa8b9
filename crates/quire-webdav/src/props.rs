//! Dead properties (PROPPATCH): kept in memory for the life of the server, per space and
//! path, following moves and copies and dropped with deletes. They are what clients note
//! about files (Windows' times, Finder's tags); the pages themselves hold the knowledge, so
//! nothing of it is committed.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use dav_server::fs::DavProp;
use http::StatusCode;

/// All dead properties together may take this much memory.
pub const PROPS_LIMIT: usize = 16 << 20;

#[derive(Default)]
pub(crate) struct Props {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// `space\0path` → property key (namespace + name) → property.
    map: HashMap<String, BTreeMap<String, DavProp>>,
    bytes: usize,
}

fn key(space: &str, path: &str) -> String {
    format!("{space}\0{}", path.trim_matches('/'))
}

fn prop_key(p: &DavProp) -> String {
    format!("{}\0{}", p.namespace.as_deref().unwrap_or(""), p.name)
}

fn size(p: &DavProp) -> usize {
    p.name.len() + p.namespace.as_ref().map_or(0, String::len) + p.xml.as_ref().map_or(0, Vec::len)
}

/// The same property without its value (for `propname` answers).
fn bare(p: &DavProp) -> DavProp {
    DavProp {
        name: p.name.clone(),
        prefix: p.prefix.clone(),
        namespace: p.namespace.clone(),
        xml: None,
    }
}

impl Props {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn has(&self, space: &str, path: &str) -> bool {
        self.lock()
            .map
            .get(&key(space, path))
            .is_some_and(|m| !m.is_empty())
    }

    /// Sets (`true`) or removes (`false`) each property; all or nothing.
    pub(crate) fn patch(
        &self,
        space: &str,
        path: &str,
        patch: Vec<(bool, DavProp)>,
    ) -> Vec<(StatusCode, DavProp)> {
        let mut state = self.lock();
        let added: usize = patch
            .iter()
            .filter(|(set, _)| *set)
            .map(|(_, p)| size(p))
            .sum();
        if state.bytes + added > PROPS_LIMIT {
            return patch
                .into_iter()
                .map(|(_, p)| (StatusCode::INSUFFICIENT_STORAGE, bare(&p)))
                .collect();
        }
        let State { map, bytes } = &mut *state;
        let props = map.entry(key(space, path)).or_default();
        let mut answers = Vec::with_capacity(patch.len());
        for (set, p) in patch {
            let answer = bare(&p);
            if let Some(old) = props.remove(&prop_key(&p)) {
                *bytes -= size(&old);
            }
            if set {
                *bytes += size(&p);
                props.insert(prop_key(&p), p);
            }
            answers.push((StatusCode::OK, answer));
        }
        answers
    }

    pub(crate) fn all(&self, space: &str, path: &str, values: bool) -> Vec<DavProp> {
        self.lock()
            .map
            .get(&key(space, path))
            .map(|m| {
                m.values()
                    .map(|p| if values { p.clone() } else { bare(p) })
                    .collect()
            })
            .unwrap_or_default()
    }

    pub(crate) fn one(&self, space: &str, path: &str, prop: &DavProp) -> Option<Vec<u8>> {
        self.lock()
            .map
            .get(&key(space, path))
            .and_then(|m| m.get(&prop_key(prop)))
            .and_then(|p| p.xml.clone())
    }

    /// Drops the properties of `path` and everything below it.
    pub(crate) fn forget(&self, space: &str, path: &str) {
        let mut state = self.lock();
        let gone: Vec<String> = below(&state.map, space, path);
        for k in gone {
            if let Some(m) = state.map.remove(&k) {
                state.bytes -= m.values().map(size).sum::<usize>();
            }
        }
    }

    /// Moves (`keep = false`) or copies the properties of `from` and below to `to`.
    pub(crate) fn carry(&self, space: &str, from: &str, to: &str, keep: bool) {
        let mut state = self.lock();
        let (from_key, to_key) = (key(space, from), key(space, to));
        for k in below(&state.map, space, from) {
            let target = format!("{to_key}{}", &k[from_key.len()..]);
            let props = if keep {
                let copy = state.map[&k].clone();
                state.bytes += copy.values().map(size).sum::<usize>();
                copy
            } else {
                state.map.remove(&k).unwrap_or_default()
            };
            state.map.insert(target, props);
        }
    }
}

fn below(map: &HashMap<String, BTreeMap<String, DavProp>>, space: &str, path: &str) -> Vec<String> {
    let exact = key(space, path);
    let prefix = format!("{exact}/");
    map.keys()
        .filter(|k| **k == exact || k.starts_with(&prefix))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prop(name: &str, value: &str) -> DavProp {
        DavProp::new(
            name.into(),
            "z".into(),
            "http://example.com/ns".into(),
            value.into(),
        )
    }

    #[test]
    fn properties_follow_moves_and_copies_and_go_with_deletes() {
        let props = Props::default();
        props.patch("s", "a/b.md", vec![(true, prop("colour", "red"))]);
        props.patch("s", "a", vec![(true, prop("tag", "x"))]);
        props.carry("s", "a", "c", false);
        assert!(!props.has("s", "a/b.md"));
        assert!(props.one("s", "c/b.md", &prop("colour", "")).is_some());
        props.carry("s", "c/b.md", "d.md", true);
        assert!(props.has("s", "c/b.md") && props.has("s", "d.md"));
        props.forget("s", "c");
        assert!(!props.has("s", "c/b.md") && !props.has("s", "c"));
        props.patch("s", "d.md", vec![(false, prop("colour", ""))]);
        assert!(!props.has("s", "d.md"));
        assert_eq!(props.lock().bytes, 0);
    }
}
