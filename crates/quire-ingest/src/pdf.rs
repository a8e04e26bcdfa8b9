//! PDF (text only) through lopdf: each page's content stream is walked here, not with
//! lopdf's own text extraction, because line breaks, spaces and sizes come from the text
//! positions: a move to another line starts a line, a gap of more than a line starts a
//! paragraph, and a line set clearly larger than the body text is a heading (the largest
//! size level 1, the next 2, …). Images, vector art and layout are not read. Streams are
//! decompressed within a bound (lopdf's `LoadOptions::max_decompressed_size` and the page
//! content limit), so a small file cannot inflate without end.

use std::collections::BTreeMap;

use lopdf::content::Content;
use lopdf::{Document as Pdf, Encoding, LoadOptions, Object};

use crate::markdown::{escape, Block};
use crate::{Document, IngestError};

/// What one stream of the file may decompress to.
const STREAM_LIMIT: usize = 64 << 20;

/// A line of text as the page sets it.
#[derive(Debug)]
struct Line {
    y: f32,
    size: f32,
    text: String,
    /// The vertical distance from the line before (0 for a page's first).
    gap: f32,
}

pub(crate) fn convert(bytes: &[u8]) -> Result<Document, IngestError> {
    let options = LoadOptions {
        max_decompressed_size: Some(STREAM_LIMIT),
        ..LoadOptions::default()
    };
    let pdf = Pdf::load_mem_with_options(bytes, options)
        .map_err(|e| IngestError::Corrupt(format!("not a readable PDF: {e}")))?;
    if pdf.is_encrypted() {
        return Err(IngestError::Corrupt(
            "the PDF is encrypted with a password: save it without one first".into(),
        ));
    }
    let mut lines = Vec::new();
    for (_, page) in pdf.get_pages() {
        page_lines(&pdf, page, &mut lines)?;
    }
    Ok(Document {
        title: info_title(&pdf),
        blocks: blocks(&lines),
    })
}

fn info_title(pdf: &Pdf) -> Option<String> {
    let info = pdf.trailer.get(b"Info").ok()?;
    let (_, info) = pdf.dereference(info).ok()?;
    let title = info.as_dict().ok()?.get(b"Title").ok()?;
    let (_, title) = pdf.dereference(title).ok()?;
    lopdf::decode_text_string(title)
        .ok()
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
}

fn number(o: &Object) -> f32 {
    o.as_float().unwrap_or(0.0)
}

fn page_lines(pdf: &Pdf, page: lopdf::ObjectId, lines: &mut Vec<Line>) -> Result<(), IngestError> {
    let fonts = pdf.get_page_fonts(page).unwrap_or_default();
    let encodings: BTreeMap<Vec<u8>, Encoding> = fonts
        .into_iter()
        .filter_map(|(name, font)| {
            font.get_font_encoding_with_limit(pdf, STREAM_LIMIT)
                .ok()
                .map(|e| (name, e))
        })
        .collect();
    let data = pdf
        .get_page_content_with_limit(page, STREAM_LIMIT)
        .map_err(|e| IngestError::Corrupt(format!("a page of the PDF cannot be read: {e}")))?;
    let content = Content::decode(&data)
        .map_err(|e| IngestError::Corrupt(format!("a page of the PDF cannot be read: {e}")))?;
    let mut font: Option<&Encoding> = None;
    let mut font_size = 0f32;
    let mut scale = 1f32;
    // The start of the current line (x, y) and where the text last written ends, roughly.
    let (mut x, mut y) = (0f32, 0f32);
    let mut end_x = f32::MIN;
    let mut leading = 0f32;
    let mut current: Option<Line> = None;
    let mut last_y: Option<f32> = None;
    for op in &content.operations {
        let args = &op.operands;
        match op.operator.as_str() {
            "BT" => {
                x = 0.0;
                y = 0.0;
                scale = 1.0;
            }
            "Tf" => {
                font = args
                    .first()
                    .and_then(|n| n.as_name().ok())
                    .and_then(|n| encodings.get(n));
                font_size = args.get(1).map(number).unwrap_or(0.0).abs();
            }
            "Td" | "TD" => {
                let (tx, ty) = (
                    args.first().map(number).unwrap_or(0.0),
                    args.get(1).map(number).unwrap_or(0.0),
                );
                if op.operator == "TD" {
                    leading = -ty;
                }
                x += tx * scale;
                y += ty * scale;
            }
            "Tm" => {
                let m: Vec<f32> = args.iter().map(number).collect();
                if m.len() == 6 {
                    scale = m[2].hypot(m[3]).max(m[0].hypot(m[1])).max(0.01);
                    (x, y) = (m[4], m[5]);
                }
            }
            "TL" => leading = args.first().map(number).unwrap_or(0.0),
            "T*" => y -= leading * scale,
            "Tj" | "TJ" | "'" | "\"" => {
                if matches!(op.operator.as_str(), "'" | "\"") {
                    y -= leading * scale;
                }
                let Some(encoding) = font else {
                    continue;
                };
                let size = (font_size * scale).max(0.1);
                let mut text = String::new();
                let parts: Vec<&Object> = match op.operator.as_str() {
                    "TJ" => args
                        .first()
                        .and_then(|a| a.as_array().ok())
                        .map(|a| a.iter().collect())
                        .unwrap_or_default(),
                    "\"" => args.get(2).into_iter().collect(),
                    _ => args.first().into_iter().collect(),
                };
                for part in parts {
                    match part {
                        Object::String(bytes, _) => {
                            if let Ok(t) = Pdf::decode_text(encoding, bytes) {
                                text.push_str(&t);
                            }
                        }
                        // A large negative kern in a TJ array is a space between words.
                        o => {
                            if number(o) < -200.0 {
                                text.push(' ');
                            }
                        }
                    }
                }
                let text: String = text.chars().filter(|c| !c.is_control()).collect();
                if text.is_empty() {
                    continue;
                }
                let same_line = current
                    .as_ref()
                    .is_some_and(|l| (l.y - y).abs() < l.size.max(size) * 0.5);
                if same_line {
                    let line = current.as_mut().expect("a current line");
                    // A gap wider than the text before could fill: a space the producer
                    // left out (most write a space glyph or a TJ kern instead).
                    if x > end_x + size * 0.5 && !line.text.ends_with(' ') && !text.starts_with(' ')
                    {
                        line.text.push(' ');
                    }
                    line.text.push_str(&text);
                    line.size = line.size.max(size);
                } else {
                    if let Some(line) = current.take() {
                        last_y = Some(line.y);
                        lines.push(line);
                    }
                    current = Some(Line {
                        y,
                        size,
                        gap: last_y.map_or(0.0, |ly| (ly - y).abs()),
                        text,
                    });
                }
                // Glyph widths are in the font, not read here: at most about 0.75 of the
                // size each, so a glyph set right after its neighbour adds no space.
                end_x = x + size * 0.75 * count_chars(op, encoding) as f32;
            }
            _ => {}
        }
    }
    if let Some(line) = current.take() {
        lines.push(line);
    }
    // A page ends a paragraph.
    if let Some(last) = lines.last_mut() {
        last.text.push('\u{0}');
    }
    Ok(())
}

fn count_chars(op: &lopdf::content::Operation, encoding: &Encoding) -> usize {
    op.operands
        .iter()
        .flat_map(|o| match o {
            Object::Array(a) => a.iter().collect::<Vec<_>>(),
            o => vec![o],
        })
        .filter_map(|o| match o {
            Object::String(bytes, _) => Pdf::decode_text(encoding, bytes).ok(),
            _ => None,
        })
        .map(|t| t.chars().count())
        .sum()
}

/// Lines into blocks: headings by size, paragraphs by gaps.
fn blocks(lines: &[Line]) -> Vec<Block> {
    if lines.is_empty() {
        return Vec::new();
    }
    // The body size: the size that sets the most characters.
    let mut by_size: BTreeMap<i64, usize> = BTreeMap::new();
    for l in lines {
        *by_size.entry((l.size * 10.0).round() as i64).or_default() += l.text.chars().count();
    }
    let body = by_size
        .iter()
        .max_by_key(|(_, n)| **n)
        .map(|(s, _)| *s as f32 / 10.0)
        .unwrap_or(10.0);
    let mut heading_sizes: Vec<i64> = by_size
        .keys()
        .copied()
        .filter(|s| *s as f32 / 10.0 >= body * 1.2)
        .collect();
    heading_sizes.sort_by(|a, b| b.cmp(a));
    heading_sizes.truncate(6);
    let level_of = |size: f32| {
        let key = (size * 10.0).round() as i64;
        heading_sizes
            .iter()
            .position(|s| *s == key)
            .map(|i| i as u8 + 1)
    };
    let mut out = Vec::new();
    let mut para: Vec<String> = Vec::new();
    let flush = |para: &mut Vec<String>, out: &mut Vec<Block>| {
        if !para.is_empty() {
            let text = para.join(" ");
            let text = join_hyphens(&text);
            out.push(Block::Paragraph(escape(text.trim())));
            para.clear();
        }
    };
    let mut last_heading: Option<(u8, usize)> = None;
    for l in lines {
        let page_end = l.text.ends_with('\u{0}');
        let text = l.text.trim_end_matches('\u{0}').trim().to_string();
        if text.is_empty() {
            continue;
        }
        if let Some(level) = level_of(l.size) {
            flush(&mut para, &mut out);
            // A heading set on two lines stays one heading.
            let len = out.len();
            match (last_heading, out.last_mut()) {
                (Some((lv, n)), Some(Block::Heading { text: t, .. }))
                    if lv == level && n == len && l.gap < l.size * 1.6 =>
                {
                    t.push(' ');
                    t.push_str(&escape(&text));
                }
                _ => {
                    out.push(Block::Heading {
                        level,
                        text: escape(&text),
                    });
                    last_heading = Some((level, out.len()));
                }
            }
            continue;
        }
        if l.gap > l.size * 1.6 {
            flush(&mut para, &mut out);
        }
        para.push(text);
        if page_end {
            flush(&mut para, &mut out);
        }
    }
    flush(&mut para, &mut out);
    out
}

/// `exam- ple` (a word broken at a line's end) as `example`.
fn join_hyphens(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '-'
            && i > 0
            && chars[i - 1].is_lowercase()
            && chars.get(i + 1) == Some(&' ')
            && chars.get(i + 2).is_some_and(|c| c.is_lowercase())
        {
            i += 2;
            continue;
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(y: f32, size: f32, text: &str, gap: f32) -> Line {
        Line {
            y,
            size,
            text: text.into(),
            gap,
        }
    }

    #[test]
    fn larger_lines_are_headings_and_gaps_paragraphs() {
        let lines = vec![
            line(700.0, 24.0, "Big Title", 0.0),
            line(670.0, 10.0, "first line of a para-", 30.0),
            line(658.0, 10.0, "graph goes on", 12.0),
            line(630.0, 10.0, "second paragraph", 28.0),
            line(600.0, 16.0, "Part", 30.0),
        ];
        assert_eq!(
            blocks(&lines),
            vec![
                Block::Heading {
                    level: 1,
                    text: "Big Title".into()
                },
                Block::Paragraph("first line of a paragraph goes on".into()),
                Block::Paragraph("second paragraph".into()),
                Block::Heading {
                    level: 2,
                    text: "Part".into()
                },
            ]
        );
    }
}
