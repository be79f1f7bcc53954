export function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

export function norm1(x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.abs(x[i]!);
  return s;
}
