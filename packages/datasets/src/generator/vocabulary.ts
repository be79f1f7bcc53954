/**
 * Word lists for the citation generator, kept as compact strings. Names mix the origins seen in
 * arXiv reference lists; venues, publishers and places are real so that the text looks like
 * the UMass citations (which are drawn from arXiv papers of many fields).
 */

const words = (s: string): readonly string[] => s.trim().split(/\s+/);
const items = (s: string): readonly string[] =>
  s
    .split("|")
    .map((x) => x.trim())
    .filter((x) => x !== "");
const pairs = (s: string): readonly (readonly [string, string])[] =>
  items(s).map((x) => {
    const [a, b] = x.split("~").map((y) => y.trim());
    return [a!, b ?? a!] as const;
  });

export const FIRST_NAMES = words(`
Aaron Abigail Adam Adrian Ahmed Aisha Alan Albert Alejandro Alexander Alexei Alice Amir Amy
Ana Anders Andrea Andrew Angela Anil Anna Antoine Anton Arjun Arthur Barbara Beatriz Benjamin
Bernard Bin Bo Boris Brian Bruno Carla Carlos Carmen Catherine Charles Chen Chloe Christian
Christopher Claire Claude Daniel David Deepak Denis Diana Diego Dmitri Dong Eduardo Elena Eli
Elizabeth Emily Emma Enrico Eric Erik Ernst Eva Fabio Fatima Felix Fernando Francesca Francis
Frank Frederik Gabriel Gang George Gerhard Giovanni Grace Gregory Guido Hans Hao Hannah Harold
Heinrich Helen Henri Hiroshi Hong Hugo Igor Ilya Ingrid Isabel Ivan Jacob James Jan Jane Jean
Jeffrey Jennifer Jian Jie Jin Johann John Jonathan Jorge Jose Joseph Juan Julia Jun Karen Karl
Katarzyna Kate Kenji Kevin Klaus Krishna Lars Laura Lei Leonid Li Lin Lisa Lucas Luis Lukas
Magnus Manuel Marco Maria Mark Martin Mary Masahiro Matthew Mei Michael Michel Miguel Mikhail
Ming Mohammed Natalia Nicolas Nikolai Nina Olga Oliver Omar Pablo Paolo Patrick Paul Pedro
Peter Philippe Pierre Ping Pradeep Qiang Rafael Rahul Rajesh Ramon Raymond Ricardo Richard
Robert Roberto Roger Rui Sabine Samuel Sandra Sara Satoshi Sebastian Sergei Shigeru Simon Sofia
Stefan Stephen Susan Sven Takeshi Tao Thomas Timothy Tomas Ulrich Valentina Victor Vladimir
Walter Wei Werner William Xin Yan Yang Ying Yoshiaki Yu Yuki Yuri Zhang Zhi Zoltan
`);

export const SURNAMES = items(`
Abe|Adams|Agarwal|Aguilar|Ahmed|Alvarez|Anderson|Andersson|Antonov|Aoki|Arnold|Bach|Bailey|
Baker|Banerjee|Barros|Bauer|Becker|Bell|Benedetti|Berg|Bernard|Bianchi|Blanco|Bodmann|Bose|
Brandt|Braun|Brooks|Brown|Bruno|Burns|Campbell|Cardoso|Carter|Castillo|Castro|Chakraborty|Chan|
Chang|Chen|Cheng|Chow|Clark|Cohen|Collins|Conti|Cook|Costa|Cruz|Da Costa|Dai|Das|Davies|Davis|
De Luca|de Souza|Dietrich|Dixon|Dubois|Duval|Edwards|Eguchi|Engel|Evans|Fabbri|Fernandes|
Fernandez|Ferrari|Fischer|Fisher|Fogli|Fontaine|Foster|Franke|Friedman|Fuchs|Fujita|Gallo|
Garcia|Gauthier|Ghosh|Giordano|Goldberg|Gomez|Gonzalez|Gordon|Graham|Grant|Greco|Green|Gupta|
Haas|Hall|Hansen|Harris|Hartmann|Hayashi|Heinz|Hernandez|Hill|Hoffmann|Horvath|Hughes|Huang|
Hurd|Ibrahim|Inoue|Ito|Ivanov|Iyer|Jackson|Jain|Jansen|Jensen|Johansson|Johnson|Jones|Kaiser|
Kang|Kato|Keller|Kelly|Khan|Kim|King|Klein|Kobayashi|Koch|Kondo|Kowalski|Kozlov|Krause|Kumar|
Kuznetsov|Lambert|Lang|Larsen|Laurent|Lee|Lehmann|Lemke|Leroy|Li|Lin|Lindqvist|Liu|Lombardi|
Lopez|Lu|Ma|Maier|Marchetti|Marino|Martin|Martinez|Maruyama|Matsumoto|Mayer|McDonald|Mehta|
Meyer|Miller|Mishra|Mitchell|Miyazaki|Moreau|Moreno|Mori|Morozov|Muller|Murphy|Murray|Nagy|
Nakamura|Nguyen|Nielsen|Novak|Novikov|O'Brien|Ogawa|Okada|Olsen|Ortiz|Pal|Park|Patel|Pavlov|
Pereira|Perez|Peters|Petrov|Phillips|Popescu|Popov|Price|Qian|Ramirez|Rao|Reddy|Reyes|Ricci|
Richter|Rivera|Roberts|Robinson|Rodriguez|Romano|Rossi|Roux|Russo|Saito|Sanchez|Santos|Sasaki|
Sato|Schmidt|Schneider|Schulz|Schwarz|Scott|Sen|Shah|Sharma|Shimizu|Silva|Simon|Singh|Smirnov|
Smith|Sokolov|Song|Sorensen|Stewart|Suzuki|Svensson|Takahashi|Tanaka|Taylor|Thomas|Thompson|
Torres|Tran|Turner|Ueda|Vasquez|Vogel|Volkov|Wagner|Walker|Wang|Watanabe|Weber|Werner|White|
Williams|Wilson|Wolf|Wong|Wright|Wu|Xu|Yamada|Yamamoto|Yang|Yoshida|Young|Yu|Zhang|Zhao|Zhou|
Zhu|Ziegler|van den Berg|van der Waals|von Neumann|Montgomery-Smith|Garcia-Lopez|Smith-Jones|
Le Gall|Di Marco|Van Bevern|Rotunno|Palazzo|Marrone|Niedermeier|Komusiewicz|Milenkovic
`);

export const AFFIXES = words("Jr. Sr. II III");

export const TITLE_ADJECTIVES = words(`
adaptive approximate asymptotic automatic Bayesian robust scalable efficient exact fast
generalized global hierarchical hybrid improved incremental linear local minimal nonlinear
nonparametric novel optimal parallel probabilistic quantum random recursive regularized
sparse spectral statistical stochastic structured supervised topological uniform unsupervised
weighted distributed dynamic discrete continuous compressed constrained convex latent
`);

export const TITLE_NOUNS = words(`
algorithm analysis approach architecture bound classification clustering complexity
computation constraint convergence decomposition dynamics entropy estimation evolution
extraction framework geometry graph inference learning limit measurement method model network
optimization partition perturbation prediction principle process recognition reconstruction
regression representation sampling segmentation selection simulation solution spectrum
stability structure symmetry system theory transformation transition verification
`);

export const TITLE_OBJECTS = items(`
citation field extraction|sequence labeling|dual decomposition|conditional random fields|
dark matter halos|Gaussian processes|random matrices|neural networks|spin glasses|
elliptic curves|quantum field theory|black hole thermodynamics|protein folding|
galaxy clusters|sparse signals|wireless sensor networks|image denoising|speech recognition|
machine translation|named entity recognition|dependency parsing|graph coloring|
boolean satisfiability|linear programs|Markov chains|Lie algebras|Banach spaces|
the Ising model|the Navier-Stokes equations|topological insulators|cosmic microwave background|
supernova remnants|neutrino oscillations|superconducting qubits|social networks|
information retrieval|compressive sensing|stochastic differential equations|
hyperbolic groups|finite fields|time series|climate models|financial markets|
recommender systems|interval graphs|planar graphs|convex polytopes|string matching
`);

/** Journals as "full name ~ abbreviation". */
export const JOURNALS = pairs(`
Physical Review D ~ Phys. Rev. D|Physical Review Letters ~ Phys. Rev. Lett.|
Physical Review B ~ Phys. Rev. B|Physics Reports ~ Phys. Rep.|Nuclear Physics B ~ Nucl. Phys. B|
Journal of Mathematical Physics ~ J. Math. Phys.|Communications in Mathematical Physics ~ Commun. Math. Phys.|
The Astrophysical Journal ~ ApJ|Monthly Notices of the Royal Astronomical Society ~ MNRAS|
Astronomy and Astrophysics ~ A&A|The Astronomical Journal ~ AJ|
Journal of High Energy Physics ~ JHEP|Europhysics Letters ~ Europhys. Lett.|
Annals of Statistics ~ Ann. Statist.|Journal of the American Statistical Association ~ J. Amer. Statist. Assoc.|
Annals of Mathematics ~ Ann. of Math.|Inventiones Mathematicae ~ Invent. Math.|
Journal of Algebra ~ J. Algebra|Israel Journal of Mathematics ~ Israel J. Math.|
Transactions of the American Mathematical Society ~ Trans. Amer. Math. Soc.|
Duke Mathematical Journal ~ Duke Math. J.|SIAM Journal on Numerical Analysis ~ SIAM J. Numer. Anal.|
SIAM Journal on Computing ~ SIAM J. Comput.|Journal of the ACM ~ J. ACM|
Communications of the ACM ~ Commun. ACM|IEEE Transactions on Information Theory ~ IEEE Trans. Inf. Theory|
IEEE Transactions on Signal Processing ~ IEEE Trans. Signal Process.|
IEEE Transactions on Pattern Analysis and Machine Intelligence ~ IEEE Trans. Pattern Anal. Mach. Intell.|
Machine Learning ~ Mach. Learn.|Journal of Machine Learning Research ~ J. Mach. Learn. Res.|
Computational Linguistics ~ Comput. Linguist.|Artificial Intelligence ~ Artif. Intell.|
Neural Computation ~ Neural Comput.|Theoretical Computer Science ~ Theoret. Comput. Sci.|
Information and Computation ~ Inform. and Comput.|Journal of Computational Physics ~ J. Comput. Phys.|
Mathematical Biosciences ~ Math. Biosci.|Journal of Theoretical Biology ~ J. Theor. Biol.|
Bioinformatics ~ Bioinformatics|Nature ~ Nature|Science ~ Science|
Proceedings of the National Academy of Sciences ~ Proc. Natl. Acad. Sci. USA|
Journal of Geophysical Research ~ J. Geophys. Res.|Econometrica ~ Econometrica|
Journal of Finance ~ J. Finance|Management Science ~ Manage. Sci.|
Physica A ~ Physica A|Journal of Statistical Physics ~ J. Stat. Phys.|
Random Structures and Algorithms ~ Random Struct. Algorithms|Combinatorica ~ Combinatorica|
Discrete Mathematics ~ Discrete Math.|Journal of Combinatorial Theory, Series B ~ J. Combin. Theory Ser. B|
Contemporary Physics ~ Contemp. Phys.|Classical and Quantum Gravity ~ Class. Quant. Grav.
`);

/** Conferences as "full proceedings name ~ acronym". */
export const CONFERENCES = pairs(`
Annual ACM Symposium on Theory of Computing ~ STOC|
IEEE Symposium on Foundations of Computer Science ~ FOCS|
Annual ACM-SIAM Symposium on Discrete Algorithms ~ SODA|
International Conference on Machine Learning ~ ICML|
Conference on Neural Information Processing Systems ~ NeurIPS|
Annual Meeting of the Association for Computational Linguistics ~ ACL|
Conference on Empirical Methods in Natural Language Processing ~ EMNLP|
International Conference on Computational Linguistics ~ COLING|
AAAI Conference on Artificial Intelligence ~ AAAI|
International Joint Conference on Artificial Intelligence ~ IJCAI|
ACM SIGKDD International Conference on Knowledge Discovery and Data Mining ~ KDD|
International World Wide Web Conference ~ WWW|
ACM SIGIR Conference on Research and Development in Information Retrieval ~ SIGIR|
IEEE Conference on Computer Vision and Pattern Recognition ~ CVPR|
International Conference on Acoustics, Speech and Signal Processing ~ ICASSP|
IEEE International Symposium on Information Theory ~ ISIT|
International Colloquium on Automata, Languages and Programming ~ ICALP|
Symposium on Theoretical Aspects of Computer Science ~ STACS|
International Workshop on Graph-Theoretic Concepts in Computer Science ~ WG|
Conference on Uncertainty in Artificial Intelligence ~ UAI|
International Conference on Artificial Intelligence and Statistics ~ AISTATS|
ACM Conference on Computer and Communications Security ~ CCS|
IEEE International Conference on Communications ~ ICC|
International Symposium on Communications, Control and Signal Processing ~ ISCCSP|
Annual Conference on Learning Theory ~ COLT|
International Conference on Learning Representations ~ ICLR
`);

/** Publishers as "name ~ city". */
export const PUBLISHERS = pairs(`
Springer ~ Berlin|Springer-Verlag ~ New York|Cambridge University Press ~ Cambridge|
Oxford University Press ~ Oxford|Princeton University Press ~ Princeton|MIT Press ~ Cambridge, MA|
Elsevier ~ Amsterdam|North-Holland ~ Amsterdam|Academic Press ~ New York|Wiley ~ New York|
John Wiley & Sons ~ Hoboken, NJ|Addison-Wesley ~ Reading, MA|Prentice Hall ~ Englewood Cliffs, NJ|
McGraw-Hill ~ New York|World Scientific ~ Singapore|Birkhauser ~ Boston|Dover ~ New York|
American Mathematical Society ~ Providence, RI|SIAM ~ Philadelphia|CRC Press ~ Boca Raton, FL|
Kluwer Academic Publishers ~ Dordrecht|Morgan Kaufmann ~ San Francisco|Pergamon Press ~ Oxford|
Chapman and Hall ~ London|University of Chicago Press ~ Chicago|Clarendon Press ~ Oxford|
ACM ~ New York, NY, USA|IEEE Computer Society ~ Los Alamitos, CA|Benjamin ~ New York|
Gordon and Breach ~ New York
`);

export const CITIES = items(`
New York|Boston|San Francisco|Los Angeles|Chicago|Seattle|Vancouver|Montreal|Toronto|London|
Paris|Berlin|Munich|Vienna|Zurich|Geneva|Amsterdam|Barcelona|Madrid|Rome|Florence|Stockholm|
Copenhagen|Prague|Budapest|Warsaw|Moscow|Tokyo|Kyoto|Beijing|Shanghai|Hong Kong|Singapore|
Seoul|Sydney|Melbourne|Bangalore|Rio de Janeiro|Buenos Aires|Lisbon|Dublin|Edinburgh|Honolulu|
New Orleans|Philadelphia|Atlanta|Austin|Baltimore|Helsinki|Oslo
`);

export const UNIVERSITIES = items(`
Princeton University|Harvard University|Stanford University|Massachusetts Institute of Technology|
University of California, Berkeley|University of Massachusetts Amherst|Carnegie Mellon University|
Cornell University|University of Chicago|Columbia University|Yale University|
University of Cambridge|University of Oxford|Imperial College London|ETH Zurich|
Ecole Polytechnique|Universite Paris-Sud|Humboldt-Universitat zu Berlin|University of Tokyo|
Kyoto University|Tsinghua University|Peking University|University of Toronto|McGill University|
University of Edinburgh|University of Amsterdam|Leiden University|University of Copenhagen|
Weizmann Institute of Science|Tel Aviv University|Indian Institute of Science|
University of Illinois at Urbana-Champaign|University of Michigan|University of Washington|
California Institute of Technology|Johannes Kepler University|University of Vienna|
Moscow State University|Seoul National University|Australian National University|
Rutgers University|University of Texas at Austin|Georgia Institute of Technology|
Swarthmore College|Brown University|Duke University|Johns Hopkins University
`);

export const DEPARTMENTS = items(`
Department of Computer Science|Department of Mathematics|Department of Physics|
Department of Statistics|Department of Electrical Engineering|Dept. of Math.|
School of Computer Science|Department of Astronomy|Department of Economics|
Department of Linguistics|Institute for Theoretical Physics
`);

export const INSTITUTIONS = items(`
Microsoft Research|IBM Research|Bell Laboratories|Los Alamos National Laboratory|
Lawrence Berkeley National Laboratory|Max Planck Institute for Informatics|INRIA|
Xerox PARC|Google Research|DIMACS|Fermilab|CERN|Santa Fe Institute|
Courant Institute of Mathematical Sciences|Institute for Advanced Study|
SFB 288, TU Berlin|Research Institute for Symbolic Computation
`);

export const SERIES = pairs(`
Lecture Notes in Computer Science ~ LNCS|Lecture Notes in Mathematics ~ LNM|
Lecture Notes in Physics ~ LNP|Graduate Texts in Mathematics ~ GTM|
Springer Series in Statistics ~ SSS|Oxford Mathematical Monographs ~ OMM|
Cambridge Studies in Advanced Mathematics ~ CSAM|ASP Conference Series ~ ASP Conf. Ser.|
Progress in Mathematics ~ Progr. Math.|Contemporary Mathematics ~ Contemp. Math.|
Advanced Studies in Pure Mathematics ~ Adv. Stud. Pure Math.|
Springer Proceedings in Physics ~ Springer Proc. Phys.|NATO ASI Series ~ NATO ASI Ser.
`);

export const WEB_HOSTS = items(`
www.example.org|arxiv.org|www.nist.gov|www.lpga.com|ssrn.com|data.worldbank.org|
www.census.gov|www.w3.org|github.com|www.who.int|www.cdc.gov|www.ncbi.nlm.nih.gov|
www.nasa.gov|www.esa.int|www.ietf.org|www.python.org|www.r-project.org|www.unicode.org
`);

export const WEB_PATHS = words(`
statistics data reports software docs standards archive publications datasets tools
`);

export const MONTHS = words(
  "January February March April May June July August September October November December",
);
export const MONTH_ABBREVIATIONS = words(
  "Jan. Feb. Mar. Apr. May Jun. Jul. Aug. Sep. Oct. Nov. Dec.",
);

export const THESIS_KINDS = items(
  "PhD thesis|Ph.D. thesis|Ph.D. dissertation|Doctoral dissertation",
);
export const MASTERS_KINDS = items("Master's thesis|MSc thesis|M.S. thesis|Diploma thesis");
export const REPORT_KINDS = items(
  "Technical Report|Tech. Rep.|Technical report|Research Report|Tech. Report|Preprint",
);
export const REPORT_PREFIXES = words("TR CS-TR MSR-TR UM-CS RR UCB/EECS CMU-CS LA-UR");
