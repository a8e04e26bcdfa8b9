//! The wire types of canvases keep what a client wrote through a decode and an encode.

use quire_api::canvas::Canvas;

/// Found by the `canvas` fuzz target: a number of more digits than a double holds
/// (`1111…111`, 112 digits) in a key quire does not know was read one step off the nearest
/// double, so writing the canvas again changed it. Numbers are read correctly rounded.
#[test]
fn a_canvas_keeps_every_number_of_its_unknown_keys_through_its_json() {
    let long = "1".repeat(112);
    for number in [
        long.as_str(),
        "0.30000000000000004",
        "2.2250738585072014e-308",
        "1e23",
    ] {
        let text = format!(
            r#"{{"nodes":[{{"id":"a","type":"text","text":"t","x":0,"y":0,"width":1,"height":1,"weight":{number}}}],"edges":[],"meta":{{"v":{number}}}}}"#
        );
        let canvas: Canvas = serde_json::from_str(&text).unwrap();
        let again: Canvas = serde_json::from_str(&serde_json::to_string(&canvas).unwrap()).unwrap();
        assert_eq!(again, canvas, "{number}");
        let expected: f64 = number.parse().unwrap();
        assert_eq!(
            canvas.extra["meta"]["v"].as_f64(),
            Some(expected),
            "{number}"
        );
    }
}
