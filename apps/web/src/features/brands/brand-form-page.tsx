import { useParams } from 'react-router';
import { BrandInputSchema, type Brand, type BrandInput } from '@fleetdesk/contract';
import { CheckField, StaticField, TextField } from '../../components/form-fields.tsx';
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
      defaultValues={{ name: '', trafficFallPercent: null, indexNow: false }}
      toValues={(brand) => ({
        name: brand.name,
        trafficFallPercent: brand.trafficFallPercent,
        indexNow: brand.indexNow,
      })}
      paths={brandPaths}
    >
      {({ item }) => (
        <>
          {item && <StaticField label="№" value={item.brandNo} />}
          <TextField<BrandInput> name="name" label="Name" required maxLength={200} autoFocus />
          {/* Not in the spec (decision 072): the "Traffic fell" health check's limit. */}
          <TextField<BrandInput>
            name="trafficFallPercent"
            label="Traffic fall, %"
            type="number"
            min={1}
            max={100}
            step={1}
            help="Off when empty: the Traffic fell check then reads Not applicable"
          />
          {/* Not in the spec (decision 075): IndexNow for the brand's domains (issue 46). */}
          <CheckField<BrandInput>
            name="indexNow"
            label="IndexNow"
            help="Tells Bing, Yandex, Seznam and the other IndexNow engines of changed pages after content jobs, sitemaps and launches; a key file is written to each site"
          />
        </>
      )}
    </FormView>
  );
}
