/** A JSON-compatible value: model files' settings, constraints files' metadata. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };
