/**
 * A user-supplied name (a file's, a category's) as text only, isolated from the text around it: a
 * right-to-left override inside it cannot reorder anything outside it.
 */
export function FileName({ name, class: className }: { name: string; class?: string }) {
  return (
    <bdi class={className ? `file-name ${className}` : 'file-name'} title={name}>
      {name}
    </bdi>
  );
}
