// examples/action-item-sync-data-table.json in a real n8n: the action items synced both ways with an n8n Data
// Table, under random changes on both sides (see sync-driver.ts).
import { syncSuite } from './sync-driver.ts';

syncSuite({
  example: 'action-item-sync-data-table.json',
  workflowId: 'devdataSyncTable1',
  credentials: async () => [],
  async setUp(rest) {
    const project = await rest('GET', '/projects/personal');
    // The table with the columns the example's sticky note and docs/syncing-action-items.md name (the editor's
    // datetime is the API's `date`).
    const table = await rest('POST', `/projects/${project.id}/data-tables`, {
      name: 'DevData action items',
      columns: [
        { name: 'description', type: 'string' },
        { name: 'completed', type: 'boolean' },
        { name: 'due_at', type: 'date' },
        { name: 'devdata_id', type: 'string' },
      ],
    });
    const tablePath = `/projects/${project.id}/data-tables/${table.id}`;
    const idFilter = (id: number) => ({
      type: 'and',
      filters: [{ columnName: 'id', condition: 'eq', value: id }],
    });
    return {
      async rows() {
        const all: any[] = [];
        for (;;) {
          const page = await rest('GET', `${tablePath}/rows?take=500&skip=${all.length}`);
          all.push(...page.data);
          if (all.length >= page.count) return all;
        }
      },
      async insert(fields) {
        await rest('POST', `${tablePath}/insert`, { data: [fields], returnType: 'id' });
      },
      async update(id, fields) {
        await rest('PATCH', `${tablePath}/rows`, { filter: idFilter(id), data: fields });
      },
      async remove(id) {
        await rest('DELETE', `${tablePath}/rows?filter=${encodeURIComponent(JSON.stringify(idFilter(id)))}`);
      },
    };
  },
});
