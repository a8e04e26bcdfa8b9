//! PowerPoint presentations (`.pptx`): each slide in the presentation's order becomes a
//! top-level heading (its title, else "Slide N") followed by its text: body placeholders as
//! bullets by level, other text boxes as paragraphs (bullets when they say so), tables.
//! A link that jumps to another slide is internal.

use std::collections::HashMap;

use crate::dom::{Dom, NodeId};
use crate::markdown::{anchor_id, anchor_link, escape, Block, Inline, Style};
use crate::zipped::{relationships, Archive};
use crate::{Document, IngestError, Limits};

pub(crate) fn convert(bytes: &[u8], limits: &Limits) -> Result<Document, IngestError> {
    let mut zip = Archive::open(bytes, limits)?;
    let presentation =
        zip.required_xml("ppt/presentation.xml", "PowerPoint presentation (pptx)")?;
    let rels = relationships(&mut zip, "ppt/presentation.xml")?;
    let core_title = crate::odt::dc_title(&mut zip, "docProps/core.xml")?;
    let slides: Vec<String> = presentation
        .find_all(Dom::ROOT, "sldId")
        .into_iter()
        .filter_map(|s| presentation.attr(s, "r:id"))
        .filter_map(|id| rels.get(id).map(|(t, _)| t.clone()))
        .collect();
    let mut blocks = Vec::new();
    let mut first_title = None;
    for (n, path) in slides.iter().enumerate() {
        let Some(dom) = zip.xml(path)? else {
            continue;
        };
        let links = relationships(&mut zip, path)?;
        let slide = Slide {
            dom: &dom,
            links: &links,
        };
        let mut body = Vec::new();
        let mut title = None;
        if let Some(tree) = dom.find(Dom::ROOT, "spTree") {
            slide.shapes(tree, &mut title, &mut body);
        }
        let heading = title.clone().unwrap_or_else(|| format!("Slide {}", n + 1));
        if first_title.is_none() {
            first_title = title;
        }
        blocks.push(Block::Heading {
            level: 1,
            text: escape(&heading),
        });
        blocks.push(Block::Anchor(anchor_id(path)));
        blocks.extend(body);
    }
    Ok(Document {
        title: core_title.or(first_title),
        blocks,
    })
}

struct Slide<'a> {
    dom: &'a Dom,
    links: &'a HashMap<String, (String, bool)>,
}

impl Slide<'_> {
    fn shapes(&self, tree: NodeId, title: &mut Option<String>, out: &mut Vec<Block>) {
        let dom = self.dom;
        for &shape in dom.children(tree) {
            match dom.name(shape) {
                "sp" => self.shape(shape, title, out),
                "grpSp" => self.shapes(shape, title, out),
                "graphicFrame" => {
                    if let Some(tbl) = dom.find(shape, "tbl") {
                        let rows = self.table(tbl);
                        if !rows.is_empty() {
                            out.push(Block::Table(rows));
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn shape(&self, sp: NodeId, title: &mut Option<String>, out: &mut Vec<Block>) {
        let dom = self.dom;
        let ph = dom.find(sp, "nvSpPr").and_then(|n| dom.find(n, "ph"));
        let ph_type = ph.map(|p| dom.attr(p, "type").unwrap_or("body"));
        let Some(body) = dom.child(sp, "txBody") else {
            return;
        };
        if matches!(ph_type, Some("title" | "ctrTitle")) {
            let text = dom
                .find_all(body, "p")
                .into_iter()
                .map(|p| dom.text(p).trim().to_string())
                .filter(|t| !t.is_empty())
                .collect::<Vec<_>>()
                .join(" ");
            if !text.is_empty() && title.is_none() {
                *title = Some(text);
                return;
            }
        }
        // Slide numbers, dates and footers are the master's furniture, not content.
        if matches!(ph_type, Some("sldNum" | "dt" | "ftr" | "hdr")) {
            return;
        }
        let bulleted = matches!(ph_type, Some("body" | "obj"));
        for p in dom.find_all(body, "p") {
            let props = dom.child(p, "pPr");
            let depth = props
                .and_then(|pp| dom.attr(pp, "lvl"))
                .and_then(|v| v.parse().ok())
                .unwrap_or(0usize);
            let none = props.is_some_and(|pp| dom.child(pp, "buNone").is_some());
            let numbered = props.is_some_and(|pp| dom.child(pp, "buAutoNum").is_some());
            let char_bullet = props.is_some_and(|pp| dom.child(pp, "buChar").is_some());
            let text = self.paragraph(p);
            if text.is_empty() {
                continue;
            }
            if (bulleted && !none) || numbered || char_bullet {
                out.push(Block::Item {
                    ordered: numbered,
                    depth,
                    text,
                });
            } else {
                out.push(Block::Paragraph(text));
            }
        }
    }

    fn paragraph(&self, p: NodeId) -> String {
        let dom = self.dom;
        let mut inline = Inline::default();
        for &c in dom.children(p) {
            match dom.name(c) {
                "r" | "fld" => {
                    let props = dom.child(c, "rPr");
                    let attr = |k: &str| props.and_then(|pp| dom.attr(pp, k));
                    let mut style = Style {
                        bold: matches!(attr("b"), Some("1" | "true")),
                        italic: matches!(attr("i"), Some("1" | "true")),
                        strike: matches!(attr("strike"), Some(s) if s != "noStrike"),
                        ..Style::default()
                    };
                    if let Some(click) = props.and_then(|pp| dom.child(pp, "hlinkClick")) {
                        let target = dom.attr(click, "r:id").and_then(|id| self.links.get(id));
                        let jump = dom
                            .attr(click, "action")
                            .is_some_and(|a| a.contains("hlinksldjump"));
                        style.link = target.map(|(t, external)| {
                            if jump || !external {
                                anchor_link(t)
                            } else {
                                t.clone()
                            }
                        });
                    }
                    if let Some(t) = dom.child(c, "t") {
                        inline.push(&dom.text(t), &style);
                    }
                }
                "br" => inline.line_break(),
                _ => {}
            }
        }
        inline.take()
    }

    fn table(&self, tbl: NodeId) -> Vec<Vec<String>> {
        let dom = self.dom;
        dom.find_all(tbl, "tr")
            .into_iter()
            .map(|tr| {
                dom.find_all(tr, "tc")
                    .into_iter()
                    .map(|tc| {
                        dom.find_all(tc, "p")
                            .into_iter()
                            .map(|p| self.paragraph(p).replace("\\\n", " "))
                            .filter(|t| !t.is_empty())
                            .collect::<Vec<_>>()
                            .join(" ")
                    })
                    .collect()
            })
            .filter(|row: &Vec<String>| !row.is_empty())
            .collect()
    }
}
