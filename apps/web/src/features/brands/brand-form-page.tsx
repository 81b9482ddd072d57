import { useParams } from 'react-router';
import { BrandInputSchema, type Brand, type BrandInput } from '@fleetdesk/contract';
import { StaticField, TextField } from '../../components/form-fields.tsx';
import { FormView } from '../../components/form-view.tsx';
import { brandPaths, brandsApi } from './brands-api.ts';

export function BrandFormPage() {
  const { id } = useParams();
  return (
    <FormView<Brand, BrandInput, BrandInput>
      entity="Brand"
      resource={brandsApi}
      schema={BrandInputSchema}
      id={id}
      defaultValues={{ name: '' }}
      toValues={(brand) => ({ name: brand.name })}
      paths={brandPaths}
    >
      {({ item }) => (
        <>
          {item && <StaticField label="№" value={item.brandNo} />}
          <TextField<BrandInput> name="name" label="Name" required maxLength={200} autoFocus />
        </>
      )}
    </FormView>
  );
}
