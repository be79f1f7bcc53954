/**
 * Citations to pick from (written for the page, in the styles the UMass corpus mixes). The first
 * is the one the page opens with: the shipped model's Viterbi merges the first two authors into
 * one person, and Soft-DD's learned count constraints ("no more person-first segments than
 * persons") split them, which is right (inspect.test.ts checks it against the shipped files).
 *
 * The last one shows a trade-off rather than a fix: the constraints rightly make "EMNLP" a
 * booktitle instead of a journal without pages, and the chain, given a booktitle there, extends
 * it over "2002 ." (UMass labels "WG 2010 ," and the like as booktitles): P(2002 = year) is 63 %
 * unconditionally but 32 % once EMNLP is a booktitle.
 */
export const EXAMPLES: readonly string[] = [
  "J. D. Lafferty, A. K. McCallum, and F. C. N. Pereira, Conditional random fields: Probabilistic models for segmenting and labeling sequence data, in Proc. ICML, 2001, pp. 282-289.",
  "Sutton, C., McCallum, A.: An introduction to conditional random fields for relational learning. In: Getoor, L., Taskar, B. (eds.) Introduction to Statistical Relational Learning. MIT Press (2007)",
  "Anzaroot, S., Passos, A., Belanger, D., and McCallum, A. (2014). Learning soft linear constraints with application to citation field extraction. In Proceedings of the 52nd Annual Meeting of the Association for Computational Linguistics, pages 593-602.",
  "Rush, A. M. and Collins, M. (2012) A tutorial on dual decomposition and Lagrangian relaxation for inference in natural language processing. Journal of Artificial Intelligence Research 45, 305-362.",
  '[12] D. Sontag, A. Globerson, and T. Jaakkola, "Introduction to dual decomposition for inference," in Optimization for Machine Learning, MIT Press, 2011.',
  "Peng, F. & McCallum, A. 2004. Accurate information extraction from research papers using conditional random fields. Proceedings of HLT-NAACL, Boston, MA.",
  "M. Collins. Discriminative training methods for hidden Markov models: theory and experiments with perceptron algorithms. EMNLP 2002.",
];
