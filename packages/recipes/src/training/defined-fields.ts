/** `T` with every field that may be undefined made optional and never undefined. */
export type DefinedFields<T> = {
  [K in keyof T as undefined extends T[K] ? never : K]: T[K];
} & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

/**
 * The fields of `fields` that hold a value: `{ a: 1, b: undefined }` → `{ a: 1 }`. One call
 * instead of a `...(x === undefined ? {} : { x })` spread per field, typed so that the result
 * passes where `exactOptionalPropertyTypes` refuses an explicit undefined.
 */
export function definedFields<T extends object>(fields: T): DefinedFields<T> {
  return Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== undefined),
  ) as DefinedFields<T>;
}
