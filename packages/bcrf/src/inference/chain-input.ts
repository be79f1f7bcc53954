// The kernels' input and gradient layout is chain-crf's objective contract: one definition.
export { type ChainGradient, type ChainInput, emptyChainInput } from "@lagrange/chain-crf";
