/** Citations to pick from (written for the page, in the styles the UMass corpus mixes). */
export const EXAMPLES: readonly string[] = [
  "M. Collins. Discriminative training methods for hidden Markov models: theory and experiments with perceptron algorithms. EMNLP 2002.",
  "Sutton, C., McCallum, A.: An introduction to conditional random fields for relational learning. In: Getoor, L., Taskar, B. (eds.) Introduction to Statistical Relational Learning. MIT Press (2007)",
  "Anzaroot, S., Passos, A., Belanger, D., and McCallum, A. (2014). Learning soft linear constraints with application to citation field extraction. In Proceedings of the 52nd Annual Meeting of the Association for Computational Linguistics, pages 593-602.",
  "J. Lafferty, A. McCallum, and F. Pereira. Conditional random fields: Probabilistic models for segmenting and labeling sequence data. In Proc. ICML, pp. 282-289, 2001.",
  "Rush, A. M. and Collins, M. (2012) A tutorial on dual decomposition and Lagrangian relaxation for inference in natural language processing. Journal of Artificial Intelligence Research 45, 305-362.",
  '[12] D. Sontag, A. Globerson, and T. Jaakkola, "Introduction to dual decomposition for inference," in Optimization for Machine Learning, MIT Press, 2011.',
  "Peng, F. & McCallum, A. 2004. Accurate information extraction from research papers using conditional random fields. Proceedings of HLT-NAACL, Boston, MA.",
];
