use super::*;

#[test]
fn the_root_is_id_one_and_ids_are_stable() {
    let ids = Ids::default();
    assert_eq!(ids.id(""), ROOT_ID);
    let a = ids.id("notes/a.md");
    assert_ne!(a, ROOT_ID);
    assert_eq!(ids.id("notes/a.md"), a);
    assert_eq!(ids.path(a).as_deref(), Some("notes/a.md"));
    assert_eq!(ids.known("notes/b.md"), None);
}

#[test]
fn a_rename_of_a_folder_moves_the_ids_below_it() {
    let ids = Ids::default();
    let folder = ids.id("notes");
    let a = ids.id("notes/a.md");
    let deep = ids.id("notes/sub/b.md");
    let sibling = ids.id("notes-old/c.md");
    let other = ids.id("other.md");
    ids.rename("notes", "archive/notes");
    assert_eq!(ids.path(folder).as_deref(), Some("archive/notes"));
    assert_eq!(ids.path(a).as_deref(), Some("archive/notes/a.md"));
    assert_eq!(ids.path(deep).as_deref(), Some("archive/notes/sub/b.md"));
    assert_eq!(ids.known("archive/notes/sub/b.md"), Some(deep));
    assert_eq!(ids.known("notes/a.md"), None);
    // A name that only starts like the folder does not move.
    assert_eq!(ids.path(sibling).as_deref(), Some("notes-old/c.md"));
    assert_eq!(ids.path(other).as_deref(), Some("other.md"));
}

#[test]
fn a_rename_over_a_file_forgets_the_replaced_id() {
    let ids = Ids::default();
    let temp = ids.id("a.md.tmp");
    let page = ids.id("a.md");
    ids.rename("a.md.tmp", "a.md");
    assert_eq!(ids.path(temp).as_deref(), Some("a.md"));
    assert_eq!(ids.path(page), None, "the replaced file's handle is stale");
    assert_eq!(ids.known("a.md"), Some(temp));
}

#[test]
fn forgetting_a_folder_forgets_everything_below_and_ids_are_not_reused() {
    let ids = Ids::default();
    let folder = ids.id("x");
    let file = ids.id("x/y.md");
    ids.forget("x");
    assert_eq!(ids.path(folder), None);
    assert_eq!(ids.path(file), None);
    let again = ids.id("x/y.md");
    assert!(again > file, "a new file at the path gets a new id");
}

#[test]
fn is_under_needs_a_separator() {
    assert!(is_under("a/b", "a"));
    assert!(is_under("a", "a"));
    assert!(!is_under("ab", "a"));
    assert!(is_under("anything", ""));
}
