import { useParams } from 'react-router';
import { DeleteView } from '../../components/delete-view.tsx';
import { rulePaths, rulesApi } from './alert-rules-api.ts';

export function RuleDeletePage() {
  const { id = '' } = useParams();
  return (
    <DeleteView
      entity="Rule"
      id={id}
      useRemove={rulesApi.useRemove}
      doneTo={rulePaths.list}
      cancelTo={rulePaths.edit(id)}
    />
  );
}
