//! PDF: a small typesetter of its own over pulldown-cmark's events, written with
//! `pdf-writer`. A4, one column; headings, paragraphs (bold and code spans), lists, quotes,
//! code blocks on a grey band, rules, tables as rows of cells, images as their alt text.
//! Each page of the document starts a new sheet.
//!
//! Text is set in DejaVu Sans and DejaVu Sans Bold (`fonts/`, their licence beside them),
//! embedded whole as CID fonts with a `ToUnicode` map, so any character the fonts cover
//! prints and every word can be searched and copied (`pdftotext` reads it back).

use std::collections::BTreeMap;
use std::io::Write as _;

use pdf_writer::types::{CidFontType, FontFlags, SystemInfo, UnicodeCmap};
use pdf_writer::{Content, Filter, Finish, Name, Pdf, Rect, Ref, Str};
use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use crate::{body_of, Source};

const REGULAR: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");
const BOLD: &[u8] = include_bytes!("../fonts/DejaVuSans-Bold.ttf");

const WIDTH: f32 = 595.0;
const HEIGHT: f32 = 842.0;
const MARGIN: f32 = 56.0;
const BODY: f32 = 10.5;
const CODE: f32 = 9.0;
const INDENT: f32 = 16.0;

/// One embedded font and the glyphs the document uses.
struct Font {
    resource: &'static [u8],
    base: &'static [u8],
    data: &'static [u8],
    face: ttf_parser::Face<'static>,
    /// Glyph → (the character it shows, advance in 1/1000 em).
    used: BTreeMap<u16, (char, f32)>,
}

impl Font {
    fn new(resource: &'static [u8], base: &'static [u8], data: &'static [u8]) -> Font {
        let face = ttf_parser::Face::parse(data, 0).expect("the vendored font parses");
        Font {
            resource,
            base,
            data,
            face,
            used: BTreeMap::new(),
        }
    }

    fn scale(&self) -> f32 {
        1000.0 / f32::from(self.face.units_per_em())
    }

    /// The glyph of `c` and its advance in 1/1000 em (`.notdef` for what the font lacks).
    fn glyph(&mut self, c: char) -> (u16, f32) {
        let id = self.face.glyph_index(c).unwrap_or(ttf_parser::GlyphId(0));
        let advance = f32::from(self.face.glyph_hor_advance(id).unwrap_or(0)) * self.scale();
        if id.0 != 0 {
            self.used.entry(id.0).or_insert((c, advance));
        }
        (id.0, advance)
    }

    fn width(&mut self, text: &str, size: f32) -> f32 {
        text.chars().map(|c| self.glyph(c).1).sum::<f32>() * size / 1000.0
    }

    /// `text` as the font's two-byte glyph ids (`Identity-H`).
    fn encode(&mut self, text: &str) -> Vec<u8> {
        text.chars()
            .flat_map(|c| self.glyph(c).0.to_be_bytes())
            .collect()
    }
}

/// A word of a paragraph.
#[derive(Debug, Clone)]
struct Word {
    text: String,
    bold: bool,
    /// A space comes before it (when it does not start a line).
    space: bool,
}

/// What a paragraph holds: words and forced line breaks.
#[derive(Debug, Clone)]
enum Piece {
    Word(Word),
    Break,
}

/// The page being laid out and the sheets done.
struct Typesetter {
    fonts: [Font; 2],
    sheets: Vec<Vec<u8>>,
    content: Content,
    /// The top of the next line, from the bottom of the sheet.
    y: f32,
    started: bool,
}

impl Typesetter {
    fn new() -> Typesetter {
        Typesetter {
            fonts: [
                Font::new(b"F1", b"DejaVuSans", REGULAR),
                Font::new(b"F2", b"DejaVuSans-Bold", BOLD),
            ],
            sheets: Vec::new(),
            content: Content::new(),
            y: HEIGHT - MARGIN,
            started: false,
        }
    }

    fn new_sheet(&mut self) {
        let done = std::mem::replace(&mut self.content, Content::new());
        self.sheets.push(done.finish().into_vec());
        self.y = HEIGHT - MARGIN;
        self.started = false;
    }

    /// Room for a line of `height`, on a new sheet when this one is full.
    fn room(&mut self, height: f32) {
        if self.y - height < MARGIN && self.started {
            self.new_sheet();
        }
        self.started = true;
    }

    fn space(&mut self, height: f32) {
        if self.started {
            self.y -= height;
        }
    }

    /// Sets `pieces` as lines from `x`, at `size`; `first` (a list marker) hangs before the
    /// first line. `band` puts each line on a grey band (code).
    fn paragraph(&mut self, pieces: &[Piece], x: f32, size: f32, first: Option<&str>, band: bool) {
        let leading = size * 1.4;
        let right = WIDTH - MARGIN;
        let mut lines: Vec<Vec<Word>> = vec![Vec::new()];
        let mut used = 0.0;
        for piece in pieces {
            let word = match piece {
                Piece::Break => {
                    lines.push(Vec::new());
                    used = 0.0;
                    continue;
                }
                Piece::Word(word) => word,
            };
            let font = &mut self.fonts[word.bold as usize];
            let space = font.width(" ", size);
            let width = font.width(&word.text, size);
            let line_empty = lines.last().is_none_or(Vec::is_empty);
            let gap = if word.space && !line_empty {
                space
            } else {
                0.0
            };
            if !line_empty && x + used + gap + width > right {
                lines.push(Vec::new());
                used = 0.0;
            }
            // A word wider than the line is cut where it reaches the margin.
            let mut rest = word.text.clone();
            loop {
                let font = &mut self.fonts[word.bold as usize];
                let line_empty = lines.last().is_none_or(Vec::is_empty);
                let gap = if word.space && !line_empty {
                    space
                } else {
                    0.0
                };
                if x + used + gap + font.width(&rest, size) <= right || rest.chars().count() < 2 {
                    used += gap + font.width(&rest, size);
                    lines.last_mut().expect("a line").push(Word {
                        text: rest,
                        bold: word.bold,
                        space: word.space,
                    });
                    break;
                }
                let mut cut = String::new();
                for c in rest.chars() {
                    if x + used + font.width(&format!("{cut}{c}"), size) > right && !cut.is_empty()
                    {
                        break;
                    }
                    cut.push(c);
                }
                rest = rest[cut.len()..].to_string();
                lines.last_mut().expect("a line").push(Word {
                    text: cut,
                    bold: word.bold,
                    space: false,
                });
                lines.push(Vec::new());
                used = 0.0;
            }
        }
        for (n, line) in lines.iter().enumerate() {
            self.room(leading);
            let baseline = self.y - size;
            if band {
                self.content
                    .set_fill_gray(0.93)
                    .rect(x - 4.0, self.y - leading, right - x + 8.0, leading)
                    .fill_nonzero()
                    .set_fill_gray(0.0);
            }
            if n == 0 {
                if let Some(marker) = first {
                    let width = self.fonts[0].width(marker, size);
                    self.show(marker, false, size, x - width - 4.0, baseline);
                }
            }
            let mut at = x;
            // Runs of one font are shown as one string, spaces included.
            let mut run = String::new();
            let mut run_bold = false;
            let mut run_x = x;
            for (i, word) in line.iter().enumerate() {
                let gap = if word.space && i > 0 { " " } else { "" };
                if word.bold != run_bold && !run.is_empty() {
                    self.show(&run, run_bold, size, run_x, baseline);
                    run.clear();
                }
                if run.is_empty() {
                    at += self.fonts[word.bold as usize].width(gap, size);
                    run_x = at;
                    run_bold = word.bold;
                    run.push_str(&word.text);
                } else {
                    run.push_str(gap);
                    run.push_str(&word.text);
                    at += self.fonts[word.bold as usize].width(gap, size);
                }
                at += self.fonts[word.bold as usize].width(&word.text, size);
            }
            if !run.is_empty() {
                self.show(&run, run_bold, size, run_x, baseline);
            }
            self.y -= leading;
        }
    }

    fn show(&mut self, text: &str, bold: bool, size: f32, x: f32, baseline: f32) {
        let font = &mut self.fonts[bold as usize];
        let glyphs = font.encode(text);
        self.content
            .begin_text()
            .set_font(Name(font.resource), size)
            .set_text_matrix([1.0, 0.0, 0.0, 1.0, x, baseline])
            .show(Str(&glyphs))
            .end_text();
    }

    fn rule(&mut self) {
        self.space(6.0);
        self.room(6.0);
        self.content
            .set_stroke_gray(0.7)
            .set_line_width(0.6)
            .move_to(MARGIN, self.y)
            .line_to(WIDTH - MARGIN, self.y)
            .stroke()
            .set_stroke_gray(0.0);
        self.y -= 10.0;
    }

    /// Lays out one page of the document.
    fn page(&mut self, markdown: &str) {
        let options = Options::ENABLE_TABLES
            | Options::ENABLE_STRIKETHROUGH
            | Options::ENABLE_TASKLISTS
            | Options::ENABLE_WIKILINKS
            | Options::ENABLE_FOOTNOTES;
        let mut pieces: Vec<Piece> = Vec::new();
        let mut pending_space = false;
        let mut bold = 0usize;
        let mut heading: Option<HeadingLevel> = None;
        let mut lists: Vec<Option<u64>> = Vec::new();
        let mut marker: Option<String> = None;
        let mut quote = 0usize;
        let mut code: Option<String> = None;
        let indent =
            |lists: &Vec<Option<u64>>, quote: usize| MARGIN + INDENT * (lists.len() + quote) as f32;
        let add = |pieces: &mut Vec<Piece>, pending: &mut bool, text: &str, bold: bool| {
            let mut word = String::new();
            for c in text.chars().chain(std::iter::once(' ')) {
                if !c.is_whitespace() {
                    word.push(c);
                    continue;
                }
                if !word.is_empty() {
                    pieces.push(Piece::Word(Word {
                        text: std::mem::take(&mut word),
                        bold,
                        space: *pending,
                    }));
                    *pending = false;
                }
                // The sentinel space after the text is not the text's.
                *pending = true;
            }
            *pending = text.ends_with(char::is_whitespace);
        };
        for event in Parser::new_ext(markdown, options) {
            match event {
                Event::Start(Tag::Heading { level, .. }) => heading = Some(level),
                Event::End(TagEnd::Heading(level)) => {
                    let size = match level {
                        HeadingLevel::H1 => 20.0,
                        HeadingLevel::H2 => 16.0,
                        HeadingLevel::H3 => 13.5,
                        _ => 12.0,
                    };
                    self.space(size * 0.8);
                    // A heading is not left alone at the foot of a sheet.
                    self.room(size * 1.4 + BODY * 3.0);
                    let all_bold: Vec<Piece> = pieces
                        .drain(..)
                        .map(|p| match p {
                            Piece::Word(w) => Piece::Word(Word { bold: true, ..w }),
                            other => other,
                        })
                        .collect();
                    self.paragraph(&all_bold, indent(&lists, quote), size, None, false);
                    self.space(size * 0.3);
                    heading = None;
                    pending_space = false;
                }
                Event::Start(Tag::Paragraph) => pending_space = false,
                Event::End(TagEnd::Paragraph) => {
                    self.paragraph(
                        &pieces,
                        indent(&lists, quote),
                        BODY,
                        marker.as_deref(),
                        false,
                    );
                    marker = None;
                    pieces.clear();
                    self.space(BODY * 0.6);
                }
                Event::Start(Tag::List(start)) => {
                    self.flush(&mut pieces, indent(&lists, quote), &mut marker);
                    lists.push(start);
                }
                Event::End(TagEnd::List(_)) => {
                    self.flush(&mut pieces, indent(&lists, quote), &mut marker);
                    lists.pop();
                    self.space(BODY * 0.4);
                }
                Event::Start(Tag::Item) => {
                    self.flush(&mut pieces, indent(&lists, quote), &mut marker);
                    pending_space = false;
                    marker = Some(match lists.last_mut() {
                        Some(Some(n)) => {
                            *n += 1;
                            format!("{}.", *n - 1)
                        }
                        _ => "•".to_string(),
                    });
                }
                Event::End(TagEnd::Item) => {
                    self.flush(&mut pieces, indent(&lists, quote), &mut marker);
                }
                Event::Start(Tag::BlockQuote(_)) => {
                    self.flush(&mut pieces, indent(&lists, quote), &mut marker);
                    quote += 1;
                }
                Event::End(TagEnd::BlockQuote(_)) => {
                    self.flush(&mut pieces, indent(&lists, quote), &mut marker);
                    quote = quote.saturating_sub(1);
                }
                Event::Start(Tag::CodeBlock(_)) => {
                    self.flush(&mut pieces, indent(&lists, quote), &mut marker);
                    code = Some(String::new());
                }
                Event::End(TagEnd::CodeBlock) => {
                    let text = code.take().unwrap_or_default();
                    let mut lines: Vec<Piece> = Vec::new();
                    for (i, line) in text.trim_end_matches('\n').split('\n').enumerate() {
                        if i > 0 {
                            lines.push(Piece::Break);
                        }
                        lines.push(Piece::Word(Word {
                            text: line.replace('\t', "    "),
                            bold: false,
                            space: false,
                        }));
                    }
                    self.space(2.0);
                    self.paragraph(&lines, indent(&lists, quote) + 4.0, CODE, None, true);
                    self.space(BODY * 0.8);
                }
                Event::Start(Tag::Strong) => bold += 1,
                Event::End(TagEnd::Strong) => bold = bold.saturating_sub(1),
                Event::Start(Tag::Image { .. }) => {
                    add(&mut pieces, &mut pending_space, "[image:", bold > 0)
                }
                Event::End(TagEnd::Image) => {
                    add(&mut pieces, &mut pending_space, "]", bold > 0);
                }
                Event::Start(Tag::TableHead | Tag::TableRow) => pending_space = false,
                Event::End(TagEnd::TableHead | TagEnd::TableRow) => {
                    self.paragraph(&pieces, indent(&lists, quote), BODY, None, false);
                    pieces.clear();
                }
                Event::End(TagEnd::TableCell) => {
                    pending_space = true;
                    add(&mut pieces, &mut pending_space, "|", false);
                    pending_space = true;
                }
                Event::End(TagEnd::Table) => self.space(BODY * 0.6),
                Event::Rule => {
                    self.flush(&mut pieces, indent(&lists, quote), &mut marker);
                    self.rule();
                }
                Event::Text(text)
                | Event::Code(text)
                | Event::InlineMath(text)
                | Event::DisplayMath(text)
                | Event::Html(text)
                | Event::InlineHtml(text) => match code.as_mut() {
                    Some(code) => code.push_str(&text),
                    None => add(
                        &mut pieces,
                        &mut pending_space,
                        &text,
                        bold > 0 || heading.is_some(),
                    ),
                },
                Event::FootnoteReference(name) => {
                    add(&mut pieces, &mut pending_space, &format!("[{name}]"), false)
                }
                Event::SoftBreak => pending_space = true,
                Event::HardBreak => {
                    pieces.push(Piece::Break);
                    pending_space = false;
                }
                Event::TaskListMarker(done) => {
                    add(
                        &mut pieces,
                        &mut pending_space,
                        if done { "[x]" } else { "[ ]" },
                        false,
                    );
                    pending_space = true;
                }
                _ => {}
            }
        }
        self.flush(&mut pieces, indent(&lists, quote), &mut marker);
    }

    /// Sets what is pending (a list item's text outside a paragraph) as a paragraph.
    fn flush(&mut self, pieces: &mut Vec<Piece>, x: f32, marker: &mut Option<String>) {
        if !pieces.is_empty() {
            self.paragraph(pieces, x, BODY, marker.as_deref(), false);
            pieces.clear();
            *marker = None;
        }
    }

    /// The PDF file.
    fn finish(mut self, title: &str) -> Vec<u8> {
        self.new_sheet();
        let mut next = 1;
        let mut id = || {
            next += 1;
            Ref::new(next)
        };
        let catalog = id();
        let tree = id();
        let info = id();
        let mut pdf = Pdf::new();
        let font_ids: Vec<Ref> = self.fonts.iter().map(|_| id()).collect();
        let mut kids = Vec::new();
        for sheet in &self.sheets {
            let page = id();
            let content = id();
            kids.push(page);
            let mut p = pdf.page(page);
            p.media_box(Rect::new(0.0, 0.0, WIDTH, HEIGHT))
                .parent(tree)
                .contents(content);
            let mut resources = p.resources();
            let mut fonts = resources.fonts();
            for (font, font_id) in self.fonts.iter().zip(&font_ids) {
                if !font.used.is_empty() {
                    fonts.pair(Name(font.resource), *font_id);
                }
            }
            fonts.finish();
            resources.finish();
            p.finish();
            pdf.stream(content, &deflate(sheet))
                .filter(Filter::FlateDecode);
        }
        pdf.catalog(catalog).pages(tree);
        pdf.pages(tree)
            .kids(kids.iter().copied())
            .count(kids.len() as i32);
        pdf.document_info(info)
            .title(pdf_writer::TextStr(title))
            .producer(pdf_writer::TextStr("quire"));
        for (font, type0) in self.fonts.iter().zip(font_ids) {
            if font.used.is_empty() {
                continue;
            }
            let (cid, descriptor, file, cmap) = (id(), id(), id(), id());
            let info = SystemInfo {
                registry: Str(b"Adobe"),
                ordering: Str(b"Identity"),
                supplement: 0,
            };
            pdf.type0_font(type0)
                .base_font(Name(font.base))
                .encoding_predefined(Name(b"Identity-H"))
                .descendant_font(cid)
                .to_unicode(cmap);
            let mut cid_font = pdf.cid_font(cid);
            cid_font
                .subtype(CidFontType::Type2)
                .base_font(Name(font.base))
                .system_info(info)
                .font_descriptor(descriptor)
                .default_width(0.0)
                .cid_to_gid_map_predefined(Name(b"Identity"));
            let mut widths = cid_font.widths();
            for (glyph, (_, advance)) in &font.used {
                widths.consecutive(*glyph, [*advance]);
            }
            widths.finish();
            cid_font.finish();
            let scale = font.scale();
            let bbox = font.face.global_bounding_box();
            pdf.font_descriptor(descriptor)
                .name(Name(font.base))
                .flags(FontFlags::NON_SYMBOLIC)
                .bbox(Rect::new(
                    f32::from(bbox.x_min) * scale,
                    f32::from(bbox.y_min) * scale,
                    f32::from(bbox.x_max) * scale,
                    f32::from(bbox.y_max) * scale,
                ))
                .italic_angle(0.0)
                .ascent(f32::from(font.face.ascender()) * scale)
                .descent(f32::from(font.face.descender()) * scale)
                .cap_height(f32::from(font.face.capital_height().unwrap_or(700)) * scale)
                .stem_v(80.0)
                .font_file2(file);
            pdf.stream(file, &deflate(font.data))
                .filter(Filter::FlateDecode)
                .pair(Name(b"Length1"), font.data.len() as i32);
            let mut map = UnicodeCmap::new(Name(b"Quire-UTF16"), info);
            for (glyph, (c, _)) in &font.used {
                map.pair(*glyph, *c);
            }
            pdf.stream(cmap, map.finish().as_slice());
        }
        pdf.finish()
    }
}

fn deflate(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    // Writing to memory cannot fail.
    let _ = encoder.write_all(bytes);
    encoder.finish().unwrap_or_default()
}

/// The PDF of the document: each page on new sheets.
pub(crate) fn document(source: &Source<'_>) -> Vec<u8> {
    let mut typesetter = Typesetter::new();
    for (i, page) in source.pages.iter().enumerate() {
        if i > 0 {
            typesetter.new_sheet();
        }
        typesetter.page(body_of(&page.text));
    }
    typesetter.finish(&source.title)
}
