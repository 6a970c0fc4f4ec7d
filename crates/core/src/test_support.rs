//! Helpers shared by the unit tests.

use crate::corpus::tokenize::{Tokenizer, TokenizerKind};

/// The `whitespace` tokenizer, lowercasing, with no begin marker.
pub fn whitespace() -> Tokenizer {
    Tokenizer {
        kind: TokenizerKind::Whitespace,
        lowercase: true,
        bos: false,
        model: None,
        special_tokens: true,
        kmer: 1,
    }
}

/// A reader that hands out at most `step` bytes per call, as slices of a file or a network
/// stream might.
pub struct Trickle<'a> {
    /// What is left to read.
    pub data: &'a [u8],
    /// Bytes per call at most.
    pub step: usize,
}

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let k = buf.len().min(self.step).min(self.data.len());
        buf[..k].copy_from_slice(&self.data[..k]);
        self.data = &self.data[k..];
        Ok(k)
    }
}

/// A small BERT-style WordPiece `tokenizer.json` (lowercasing normaliser, `[CLS]` … `[SEP]`).
pub const WORDPIECE: &str = r###"{"version":"1.0","truncation":{"max_length":3,"strategy":"LongestFirst","stride":0,"direction":"Right"},"padding":null,"added_tokens":[
      {"id":0,"content":"[UNK]","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},
      {"id":1,"content":"[CLS]","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},
      {"id":2,"content":"[SEP]","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true}],
      "normalizer":{"type":"BertNormalizer","clean_text":true,"handle_chinese_chars":true,"strip_accents":null,"lowercase":true},
      "pre_tokenizer":{"type":"BertPreTokenizer"},
      "post_processor":{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"[CLS]","type_id":0}},{"Sequence":{"id":"A","type_id":0}},{"SpecialToken":{"id":"[SEP]","type_id":0}}],"pair":[{"Sequence":{"id":"A","type_id":0}}],"special_tokens":{"[CLS]":{"id":"[CLS]","ids":[1],"tokens":["[CLS]"]},"[SEP]":{"id":"[SEP]","ids":[2],"tokens":["[SEP]"]}}},
      "decoder":null,
      "model":{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##","max_input_chars_per_word":100,
        "vocab":{"[UNK]":0,"[CLS]":1,"[SEP]":2,"the":3,"dog":4,"bit":5,"##es":6,"man":7,"!":8}}}"###;

/// The report of a small synthetic corpus (200 sequences of 20 positions, d = 16): the charts'
/// and the report's tests draw and read it.
pub fn report() -> crate::report::Report {
    let lines = crate::demos::synth::generate(&crate::demos::synth::SynthParams {
        sequences: 200,
        positions: 20,
        ..Default::default()
    })
    .expect("the synthetic corpus");
    let p = crate::analysis::AnalysisParams {
        encodings: crate::encodings::EncodingParams { d: 16, ..Default::default() },
        ..Default::default()
    };
    crate::analysis::analyze(&crate::Corpus::from_sequences(lines), &p, &[], &mut |_| true)
        .expect("the analysis")
        .report(true)
}

/// A synthetic corpus of `sequences` lines of `positions` tokens over 30 types: its analysis
/// (d = 8, no SMACOF) and its tokens, as the learning experiment reads them.
pub fn learn_corpus(sequences: usize, positions: usize) -> (crate::Analysis, Vec<Vec<String>>) {
    use crate::demos::synth::{generate, SynthParams};
    let lines =
        generate(&SynthParams { sequences, positions, vocab: 30, ..Default::default() }).expect("synthetic corpus");
    let mut p = crate::analysis::AnalysisParams::default();
    p.encodings.d = 8;
    p.encodings.smacof_max_iter = 0;
    let analysis = crate::analysis::analyze(&crate::Corpus::from_sequences(lines.clone()), &p, &[], &mut |_| true)
        .expect("analysis");
    let tok = p.tokenizer();
    (analysis, lines.iter().map(|l| tok.tokens(l, p.max_len)).collect())
}
