import { useParams } from 'react-router';
import { RegionInputSchema, type Region, type RegionInput } from '@fleetdesk/contract';
import { StaticField, TextField } from '../../components/form-fields.tsx';
import { FormView } from '../../components/form-view.tsx';
import { regionPaths, regionsApi } from './regions-api.ts';

export function RegionFormPage() {
  const { id } = useParams();
  return (
    <FormView<Region, RegionInput, RegionInput>
      entity="Region"
      resource={regionsApi}
      schema={RegionInputSchema}
      id={id}
      defaultValues={{ name: '' }}
      toValues={(region) => ({ name: region.name })}
      paths={regionPaths}
    >
      {({ item }) => (
        <>
          {item && <StaticField label="№" value={item.regionNo} />}
          <TextField<RegionInput> name="name" label="Name" required maxLength={200} autoFocus />
        </>
      )}
    </FormView>
  );
}
