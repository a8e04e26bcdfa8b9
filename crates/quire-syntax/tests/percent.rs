//! Properties of the one percent-decoder: it never panics on any text (a URI a client sends
//! reaches it unchecked), and it inverts the link printer's percent-encoding.

use proptest::prelude::*;
use quire_syntax::{percent_decode, percent_decode_strict, print_target, LinkKind};

/// Text made of escapes, broken escapes and multi-byte characters next to `%`.
fn percentish() -> impl Strategy<Value = String> {
    let fragment = prop_oneof![
        Just("%".to_owned()),
        Just("%2".to_owned()),
        Just("%20".to_owned()),
        Just("%C3".to_owned()),
        Just("%A9".to_owned()),
        Just("%F0%9F".to_owned()),
        Just("%zz".to_owned()),
        Just("a".to_owned()),
        Just("F".to_owned()),
        Just("é".to_owned()),
        Just("€".to_owned()),
        Just("😀".to_owned()),
        Just("/".to_owned()),
        "\\PC",
    ];
    prop::collection::vec(fragment, 0..24).prop_map(|parts| parts.concat())
}

proptest! {
    #[test]
    fn percent_decode_never_panics_on_any_string(text in any::<String>()) {
        let lenient = percent_decode(&text);
        if let Ok(strict) = percent_decode_strict(&text) {
            prop_assert_eq!(strict, lenient);
        }
    }

    #[test]
    fn percent_decode_never_panics_on_escapes_beside_multibyte_characters(text in percentish()) {
        let lenient = percent_decode(&text);
        if let Ok(strict) = percent_decode_strict(&text) {
            prop_assert_eq!(strict, lenient);
        }
    }

    #[test]
    fn percent_decode_inverts_the_markdown_printer(path in any::<String>(), angle in any::<bool>()) {
        let printed = print_target(LinkKind::Markdown, angle, &path);
        prop_assert_eq!(percent_decode(&printed), path.clone());
        prop_assert_eq!(percent_decode_strict(&printed), Ok(path));
    }

    #[test]
    fn percent_decode_inverts_the_printer_on_percent_heavy_paths(path in percentish(), angle in any::<bool>()) {
        let printed = print_target(LinkKind::Markdown, angle, &path);
        prop_assert_eq!(percent_decode(&printed), path.clone());
        prop_assert_eq!(percent_decode_strict(&printed), Ok(path));
    }
}
