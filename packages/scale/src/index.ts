// @lagrange/scale: tagging whole corpora — streaming, all cores, many machines.
export {};
